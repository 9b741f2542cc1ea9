/**
 * Device-owner checks (`requireBiometricRemoteAccess`; decision 0033): this device's platform authenticator
 * registered with the hub, then a user-verified assertion for one purpose, which the hub turns into a
 * one-use proof.
 */
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { hub } from '../../api/client';
import { deviceId } from './device';

const registeredKey = 'svc.mobile.authenticatorRegistered';

export function isDeviceRegistered(): boolean {
  return localStorage.getItem(registeredKey) === deviceId();
}

export async function registerDevice(): Promise<void> {
  const { data } = await hub.call('mobile.registrationOptions', { body: { device_id: deviceId() } });
  const response = await startRegistration({
    optionsJSON: data.options as unknown as PublicKeyCredentialCreationOptionsJSON,
  });
  await hub.call('mobile.register', {
    body: { device_id: deviceId(), response: response as unknown as Record<string, unknown> },
  });
  localStorage.setItem(registeredKey, deviceId());
}

/** Verifies the device owner for `purpose` and returns the hub's proof. */
export async function proveDeviceOwner(purpose: string): Promise<string> {
  if (!isDeviceRegistered()) await registerDevice();
  const { data } = await hub.call('mobile.proofOptions', { body: { purpose } });
  const response = await startAuthentication({
    optionsJSON: data.options as unknown as PublicKeyCredentialRequestOptionsJSON,
  });
  const proof = await hub.call('mobile.proof', {
    body: { purpose, response: response as unknown as Record<string, unknown> },
  });
  return proof.data.proof;
}
