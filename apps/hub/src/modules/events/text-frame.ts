/**
 * WebSocket text frames as a server sends them (RFC 6455 section 5.2: FIN, opcode 1, unmasked), built once per
 * event so the same bytes go to every client that may see it, with no per-client framing or copying; and the
 * same message compressed once (RFC 7692, permessage-deflate without context takeover, decision 0100) for the
 * clients that negotiated it.
 */
import zlib from 'node:zlib';

/** The empty stored block a sync flush ends with; RFC 7692 section 7.2.1 has the sender remove it. */
const syncFlushTail = Buffer.from([0x00, 0x00, 0xff, 0xff]);

function frame(payload: Buffer, compressed: boolean): Buffer {
  const length = payload.length;
  const headerBytes = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const bytes = Buffer.allocUnsafe(headerBytes + length);
  // FIN, RSV1 (the message is compressed) when it is, opcode 1 (text).
  bytes[0] = compressed ? 0xc1 : 0x81;
  if (length < 126) {
    bytes[1] = length;
  } else if (length < 65_536) {
    bytes[1] = 126;
    bytes.writeUInt16BE(length, 2);
  } else {
    bytes[1] = 127;
    bytes.writeBigUInt64BE(BigInt(length), 2);
  }
  payload.copy(bytes, headerBytes);
  return bytes;
}

/** The message `payload` (UTF-8 text) as one uncompressed text frame. */
export function textFrame(payload: Buffer): Buffer {
  return frame(payload, false);
}

/**
 * The message `payload` compressed on its own (no earlier message's window, so any client that negotiated
 * `server_no_context_takeover` with a 32 KiB window can inflate it), as one text frame with RSV1; or null when
 * compressing does not make it smaller, and the plain frame should go instead (RFC 7692 lets each message be
 * compressed or not).
 */
export function deflatedTextFrame(payload: Buffer): Buffer | null {
  const deflated = zlib.deflateRawSync(payload, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const end = deflated.subarray(-syncFlushTail.length).equals(syncFlushTail)
    ? deflated.length - syncFlushTail.length
    : deflated.length;
  if (end >= payload.length) return null;
  return frame(deflated.subarray(0, end), true);
}
