import { describe, expect, it } from 'vitest';
import { createAdmission, type AdmissionRelease } from './gateway-admission.js';

function rig(options: { concurrency: number; queueLimit: number; maxWaitMs: number }) {
  let now = 0;
  const admission = createAdmission({ ...options, now: () => now });
  const outcomes: string[] = [];
  const releases = new Map<string, AdmissionRelease>();
  const enter = (name: string, isGone: () => boolean = () => false) =>
    admission.enter(isGone).then((release) => {
      outcomes.push(`${name}:${release ? 'in' : 'refused'}`);
      if (release) releases.set(name, release);
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

  it('refuses at once when the queue is full', async () => {
    const r = rig({ concurrency: 1, queueLimit: 1, maxWaitMs: 8_000 });
    void r.enter('a');
    void r.enter('b');
    void r.enter('c');
    await settle();
    expect(r.outcomes).toEqual(['a:in', 'c:refused']);
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
    expect(r.outcomes).toEqual(['a:in', 'stale:refused', 'left:refused', 'fresh:in']);
  });

  it('refuses everyone waiting, and anyone after, once closed', async () => {
    const r = rig({ concurrency: 1, queueLimit: 10, maxWaitMs: 8_000 });
    void r.enter('a');
    void r.enter('b');
    await settle();
    r.admission.close();
    void r.enter('c');
    await settle();
    expect(r.outcomes).toEqual(['a:in', 'b:refused', 'c:refused']);
  });
});
