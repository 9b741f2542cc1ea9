/**
 * The protobuf encoding of Prometheus' `prometheus.WriteRequest` (remote write 1.0, prompb/remote.proto and
 * types.proto), only what the hub sends:
 *
 *   WriteRequest { repeated TimeSeries timeseries = 1; }
 *   TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
 *   Label        { string name = 1; string value = 2; }
 *   Sample       { double value = 1; int64 timestamp = 2; }   // milliseconds since the epoch
 */

interface RemoteLabel {
  name: string;
  value: string;
}

interface RemoteSample {
  value: number;
  timestampMs: number;
}

export interface RemoteSeries {
  /** Sorted by name, `__name__` among them (the receiver requires the order). */
  labels: readonly RemoteLabel[];
  /** In timestamp order. */
  samples: readonly RemoteSample[];
}

const lengthDelimited = 2;
const varintWire = 0;
const fixed64Wire = 1;

/** A growing byte buffer with the few protobuf writes needed here. */
class Writer {
  private bytes = new Uint8Array(256);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  varint(value: number): void {
    this.room(10);
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.bytes[this.length++] = v;
  }

  key(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  raw(data: Uint8Array): void {
    this.room(data.length);
    this.bytes.set(data, this.length);
    this.length += data.length;
  }

  double(value: number): void {
    this.room(8);
    new DataView(this.bytes.buffer).setFloat64(this.length, value, true);
    this.length += 8;
  }

  message(field: number, body: Writer): void {
    this.key(field, lengthDelimited);
    this.varint(body.length);
    this.raw(body.finish());
  }

  string(field: number, text: string): void {
    const data = Buffer.from(text, 'utf8');
    this.key(field, lengthDelimited);
    this.varint(data.length);
    this.raw(data);
  }

  finish(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

function encodeSeries(series: RemoteSeries): Writer {
  const w = new Writer();
  for (const label of series.labels) {
    const l = new Writer();
    l.string(1, label.name);
    l.string(2, label.value);
    w.message(1, l);
  }
  for (const sample of series.samples) {
    const s = new Writer();
    s.key(1, fixed64Wire);
    s.double(sample.value);
    s.key(2, varintWire);
    // int64 as a varint; the hub's timestamps are after 1970, so never negative.
    s.varint(Math.max(0, Math.trunc(sample.timestampMs)));
    w.message(2, s);
  }
  return w;
}

export function encodeWriteRequest(series: readonly RemoteSeries[]): Uint8Array {
  const w = new Writer();
  for (const one of series) w.message(1, encodeSeries(one));
  return w.finish();
}
