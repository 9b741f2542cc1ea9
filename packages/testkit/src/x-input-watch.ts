/**
 * What a test VNC server's X display received as input, seen from the X server's side: a tiny X11 client on
 * the display's local socket (no xev, xdotool or xinput here, and no X library in Node) that selects the
 * pointer button and key events of the root window. With no window manager and no other window, the root
 * window is under the pointer and holds the focus, so every click, wheel step and key the VNC server injects
 * is delivered to it. Keycodes are turned into keysyms with the server's keyboard mapping when asked (the VNC
 * server may map a keysym it lacks to a spare keycode as it goes).
 */
import net from 'node:net';

export interface XButtonEvent {
  kind: 'press' | 'release';
  /** 1 left, 2 middle, 3 right, 4 and 5 the wheel up and down. */
  button: number;
  x: number;
  y: number;
}

export interface XKeyEvent {
  kind: 'press' | 'release';
  keysym: number;
}

export interface XInputWatch {
  buttons(): XButtonEvent[];
  keys(): Promise<XKeyEvent[]>;
  close(): void;
}

const keyPress = 2;
const keyRelease = 3;
const buttonPress = 4;
const buttonRelease = 5;
const eventMask = 0x1 | 0x2 | 0x4 | 0x8; // KeyPress, KeyRelease, ButtonPress, ButtonRelease

/** Connects to display `:display` and starts recording. */
export async function watchXInput(display: number): Promise<XInputWatch> {
  const socket = net.connect(`/tmp/.X11-unix/X${display}`);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buffer = Buffer.alloc(0);
  let waiting: ((data: Buffer) => void) | null = null;
  let need = 0;
  const keyEvents: { kind: 'press' | 'release'; keycode: number }[] = [];
  const buttonEvents: XButtonEvent[] = [];
  let setupDone = false;
  let replyWaiter: ((reply: Buffer) => void) | null = null;

  const take = (n: number): Buffer => {
    const out = buffer.subarray(0, n);
    buffer = buffer.subarray(n);
    return out;
  };
  const pump = () => {
    if (!setupDone) {
      if (waiting && buffer.length >= need) {
        const w = waiting;
        waiting = null;
        w(take(need));
      }
      return;
    }
    while (buffer.length >= 32) {
      const code = (buffer[0] ?? 0) & 0x7f;
      if (code === 1) {
        const length = 32 + buffer.readUInt32LE(4) * 4;
        if (buffer.length < length) return;
        const reply = take(length);
        replyWaiter?.(reply);
        replyWaiter = null;
        continue;
      }
      const event = take(32);
      if (code === 0) throw new Error(`X error ${event[1]} on request ${event[10]}`);
      const detail = event[1] ?? 0;
      if (code === keyPress || code === keyRelease)
        keyEvents.push({ kind: code === keyPress ? 'press' : 'release', keycode: detail });
      if (code === buttonPress || code === buttonRelease)
        buttonEvents.push({
          kind: code === buttonPress ? 'press' : 'release',
          button: detail,
          x: event.readInt16LE(20),
          y: event.readInt16LE(22),
        });
    }
  };
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    pump();
  });
  const read = (n: number) =>
    new Promise<Buffer>((resolve) => {
      waiting = resolve;
      need = n;
      pump();
    });

  // Connection setup: little-endian, protocol 11.0, no authorisation (the test server's local socket).
  const hello = Buffer.alloc(12);
  hello.write('l', 0, 'latin1');
  hello.writeUInt16LE(11, 2);
  socket.write(hello);
  const head = await read(8);
  if (head[0] !== 1) throw new Error(`the X server refused the connection (${head[0]})`);
  const body = await read(head.readUInt16LE(6) * 4);
  const minKeycode = body[26] ?? 8;
  const maxKeycode = body[27] ?? 255;
  const vendorLength = body.readUInt16LE(16);
  const formats = body[21] ?? 0;
  const screens = 32 + Math.ceil(vendorLength / 4) * 4 + formats * 8;
  const root = body.readUInt32LE(screens);
  setupDone = true;
  pump();

  // ChangeWindowAttributes(root, event-mask).
  const change = Buffer.alloc(16);
  change.writeUInt8(2, 0);
  change.writeUInt16LE(4, 2);
  change.writeUInt32LE(root, 4);
  change.writeUInt32LE(0x800, 8);
  change.writeUInt32LE(eventMask, 12);
  socket.write(change);

  const keyboardMapping = async (): Promise<Map<number, number>> => {
    const request = Buffer.alloc(8);
    request.writeUInt8(101, 0);
    request.writeUInt16LE(2, 2);
    request.writeUInt8(minKeycode, 4);
    request.writeUInt8(maxKeycode - minKeycode + 1, 5);
    const reply = await new Promise<Buffer>((resolve) => {
      replyWaiter = resolve;
      socket.write(request);
    });
    const perKeycode = reply[1] ?? 1;
    const map = new Map<number, number>();
    for (let keycode = minKeycode; keycode <= maxKeycode; keycode += 1) {
      const at = 32 + (keycode - minKeycode) * perKeycode * 4;
      map.set(keycode, reply.readUInt32LE(at));
    }
    return map;
  };

  return {
    buttons: () => [...buttonEvents],
    keys: async () => {
      const map = await keyboardMapping();
      return keyEvents.map((e) => ({ kind: e.kind, keysym: map.get(e.keycode) ?? 0 }));
    },
    close: () => {
      socket.destroy();
    },
  };
}
