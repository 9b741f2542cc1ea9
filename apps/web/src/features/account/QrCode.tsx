/**
 * A QR code drawn as SVG from text (an otpauth:// URI), in the browser: the secret never leaves the page for
 * an image service. One path of unit squares, so the DOM stays small; dark on a light quiet zone in both
 * themes, since authenticator apps read that best.
 */
import { useMemo } from 'react';
import { encode } from 'uqr';

function modulesPath(rows: readonly (readonly boolean[])[]): string {
  let path = '';
  rows.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (dark) path += `M${x} ${y}h1v1h-1z`;
    });
  });
  return path;
}

export function QrCode({ text, label, size = 200 }: { text: string; label: string; size?: number }) {
  const qr = useMemo(() => encode(text, { ecc: 'M', border: 2 }), [text]);
  return (
    <svg
      className="qr-code"
      role="img"
      aria-label={label}
      width={size}
      height={size}
      viewBox={`0 0 ${qr.size} ${qr.size}`}
      shapeRendering="crispEdges"
    >
      <rect width={qr.size} height={qr.size} fill="#ffffff" />
      <path d={modulesPath(qr.data)} fill="#000000" />
    </svg>
  );
}
