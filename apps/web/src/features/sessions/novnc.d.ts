/** The part of noVNC's RFB class the console uses (the package ships no types). */
declare module '@novnc/novnc' {
  /** A WebSocket, or anything with its shape (the replay channel). */
  export interface RfbChannel {
    binaryType: string;
    readonly protocol: string;
    readonly readyState: number | string;
    onopen: ((event: Event) => void) | null;
    onmessage: ((event: { data: ArrayBuffer }) => void) | null;
    onclose: ((event: { code: number; reason: string; wasClean: boolean }) => void) | null;
    onerror: ((event: Event) => void) | null;
    send(data: ArrayBuffer | Uint8Array): void;
    close(): void;
  }

  export interface RfbOptions {
    credentials?: { username?: string; password?: string; target?: string };
    shared?: boolean;
    wsProtocols?: string[];
  }

  // noVNC's own module shape: RFB is its default export.
  // eslint-disable-next-line no-restricted-syntax
  export default class RFB extends EventTarget {
    constructor(target: HTMLElement, urlOrChannel: string | RfbChannel | WebSocket, options?: RfbOptions);
    viewOnly: boolean;
    scaleViewport: boolean;
    clipViewport: boolean;
    resizeSession: boolean;
    background: string;
    disconnect(): void;
    sendCredentials(credentials: { username?: string; password?: string }): void;
    sendCtrlAltDel(): void;
    /** An X keysym (with its KeyboardEvent.code, or null), pressed and released unless `down` says which. */
    sendKey(keysym: number, code: string | null, down?: boolean): void;
    focus(): void;
  }
}
