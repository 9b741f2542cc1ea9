/**
 * The phone's own authenticator for the device-owner proof (WebAuthn user verification) of the phone's
 * terminal and desktop: a virtual one through the Chrome DevTools Protocol, as a phone's fingerprint reader
 * or PIN would answer. `userVerified: false` is a device that can prove presence only.
 */
import type { CDPSession, Page } from 'playwright-core';

export interface DeviceAuthenticator {
  cdp: CDPSession;
  authenticatorId: string;
}

export async function addDeviceAuthenticator(
  page: Page,
  { userVerified = true, cdp }: { userVerified?: boolean; cdp?: CDPSession } = {},
): Promise<DeviceAuthenticator> {
  const session = cdp ?? (await page.context().newCDPSession(page));
  if (!cdp) await session.send('WebAuthn.enable');
  const { authenticatorId } = await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: userVerified,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp: session, authenticatorId };
}
