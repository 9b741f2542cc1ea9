import { describe, expect, it } from 'vitest';
import {
  admissionDefaults,
  createAdmission,
  type AdmissionOptions,
  type AdmissionRelease,
} from './gateway-admission.js';

function rig(
  options: Partial<AdmissionOptions> & Pick<AdmissionOptions, 'concurrency' | 'queueLimit' | 'maxWaitMs'>,
  startMs = 0,
) {
  let now = startMs;
  const admission = createAdmission({ ...admissionDefaults, ...options, now: () => now });
  const outcomes: string[] = [];
  const releases = new Map<string, AdmissionRelease>();
  const enter = (name: string, isGone: () => boolean = () => false) =>
    admission.enter(isGone).then((outcome) => {
      if ('release' in outcome) {
        outcomes.push(`${name}:in`);
        releases.set(name, outcome.release);
      } else outcomes.push(`${name}:retry ${String(outcome.retryAfterS)}`);
    });
  const release = async (name: string) => {
    releases.get(name)?.();
    await new Promise((r) => setImmediate(r));
  };
  return {
    admission,
    outcomes,
    enter,
    release,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('agent admission', () => {
  it('admits up to its slots at once, then one waiting per slot given back, first come first served', async () => {
    const r = rig({ concurrency: 2, queueLimit: 10, maxWaitMs: 8_000 });
    void r.enter('a');
    void r.enter('b');
    void r.enter('c');
    void r.enter('d');
    await settle();
    expect(r.outcomes).toEqual(['a:in', 'b:in']);
    expect(r.admission.stats()).toEqual({ inFlight: 2, queued: 2 });

    await r.release('b');
    expect(r.outcomes).toEqual(['a:in', 'b:in', 'c:in']);
    await r.release('b'); // a second release of the same slot frees nothing more
    expect(r.admission.stats()).toEqual({ inFlight: 2, queued: 1 });
    await r.release('a');
    expect(r.outcomes.at(-1)).toBe('d:in');
  });

  it('refuses at once with a Retry-After when the queue is full', async () => {
    const r = rig({ concurrency: 1, queueLimit: 1, maxWaitMs: 8_000 });
    void r.enter('a');
    void r.enter('b');
    void r.enter('c');
    await settle();
    expect(r.outcomes).toEqual(['a:in', 'c:retry 1']);
  });

  it('refuses one that waited longer than allowed, and skips one that left, giving the slot to the next', async () => {
    const r = rig({ concurrency: 1, queueLimit: 10, maxWaitMs: 1_000 });
    void r.enter('a');
    void r.enter('stale');
    await settle();
    r.advance(1_500);
    let gone = false;
    void r.enter('left', () => gone);
    void r.enter('fresh');
    await settle();
    gone = true;
    await r.release('a');
    expect(r.outcomes).toEqual(['a:in', 'stale:retry 1', 'left:retry 1', 'fresh:in']);
  });

  it('refuses everyone waiting, and anyone after, once closed', async () => {
    const r = rig({ concurrency: 1, queueLimit: 10, maxWaitMs: 8_000 });
    void r.enter('a');
    void r.enter('b');
    await settle();
    r.admission.close();
    void r.enter('c');
    await settle();
    expect(r.outcomes).toEqual(['a:in', 'b:retry 1', 'c:retry 1']);
  });

  it('once it knows its pace, queues only what it admits soon and books each refused connect a later second', async () => {
    // 2 slots, 1 s of pace in the queue.
    const r = rig({
      concurrency: 2,
      queueLimit: 1_000,
      maxWaitMs: 60_000,
      queueWaitMs: 1_000,
      minPacePerS: 1,
    });
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) void r.enter(name);
    await settle();
    // The window the queue began in does not count (it began idle); the next begins with all slots taken.
    r.advance(1_000);
    await r.release('a');
    // Within that second, 4 slots given back while more waited: a pace of 4 a second.
    for (const name of ['b', 'c', 'd', 'e']) await r.release(name);
    r.advance(1_000);
    for (let i = 0; i < 10; i += 1) void r.enter(`x${String(i)}`);
    await settle();
    // f and g in flight; h and x0–x2 queued (a second of the pace); the others booked at 4 a second after it.
    expect(r.admission.stats()).toEqual({ inFlight: 2, queued: 4 });
    expect(r.outcomes.filter((o) => o.startsWith('x'))).toEqual([
      'x3:retry 1',
      'x4:retry 2',
      'x5:retry 2',
      'x6:retry 2',
      'x7:retry 2',
      'x8:retry 3',
      'x9:retry 3',
    ]);
  });

  it('never books past its longest Retry-After, and never queues past its limit', async () => {
    const r = rig({
      concurrency: 1,
      queueLimit: 5,
      maxWaitMs: 60_000,
      minPacePerS: 1,
      maxRetryAfterS: 3,
    });
    for (let i = 0; i < 20; i += 1) void r.enter(`x${String(i)}`);
    await settle();
    expect(r.admission.stats()).toEqual({ inFlight: 1, queued: 5 });
    const retries = r.outcomes.filter((o) => o.includes('retry')).map((o) => Number(o.split(' ')[1]));
    expect(retries).toHaveLength(14);
    expect(Math.max(...retries)).toBe(3);
    expect(retries.every((s, i) => s >= 1 && s >= (retries[i - 1] ?? 1))).toBe(true);
  });

  it('books whole seconds whatever fraction the clock reads', async () => {
    // performance.now() is fractional: at 6384.857142857143, (t + 10000) - t is 10000.000000000002, which once
    // rounded a 10 s turn up to 11.
    const r = rig({ concurrency: 1, queueLimit: 1, maxWaitMs: 60_000, minPacePerS: 0.1 }, 44_694 / 7);
    void r.enter('a');
    void r.enter('b');
    void r.enter('c');
    void r.enter('d');
    await settle();
    expect(r.outcomes).toEqual(['a:in', 'c:retry 10', 'd:retry 20']);
  });
});
