/**
 * The console's settings (`/api/settings`): runtime settings by domain (the keys are in ../settings.ts), the
 * TLS certificate override, and the restart that settings read only at start need.
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import {
  SettingDomainParams,
  SettingsPatch,
  SettingsUpdated,
  SettingsView,
  settingDomains,
} from '../settings.js';
import { TlsStatus, TlsUpload } from './tls.js';

export const RestartResult = Type.Object({ restarting: Type.Boolean(), message: Type.String() });
export type RestartResult = Static<typeof RestartResult>;

export const settingsContracts = {
  'settings.list': defineRoute({
    name: 'settings.list',
    surface: 'console',
    method: 'GET',
    path: '/settings',
    auth: 'admin',
    summary: 'Every runtime setting: its effective value, where it came from, its default and env var',
    response: SettingsView,
  }),
  'settings.domainGet': defineRoute({
    name: 'settings.domainGet',
    surface: 'console',
    method: 'GET',
    path: '/settings/{domain}',
    auth: 'admin',
    summary: 'The runtime settings of one domain',
    params: SettingDomainParams,
    paramPatterns: { domain: settingDomains.join('|') },
    response: SettingsView,
  }),
  'settings.domainUpdate': defineRoute({
    name: 'settings.domainUpdate',
    surface: 'console',
    method: 'PATCH',
    path: '/settings/{domain}',
    auth: 'admin',
    summary:
      'Change the settings of one domain (null clears the API value); audited, applied live or at restart',
    description:
      'The body maps keys of this domain to a value or null. Policies apply at once; the answer lists the ' +
      'changed keys that need `POST /api/settings/restart`.',
    params: SettingDomainParams,
    paramPatterns: { domain: settingDomains.join('|') },
    body: SettingsPatch,
    response: SettingsUpdated,
  }),
  'settings.restart': defineRoute({
    name: 'settings.restart',
    surface: 'console',
    method: 'POST',
    path: '/settings/restart',
    auth: 'admin',
    summary: 'Restart the hub process (its supervisor starts it again)',
    response: RestartResult,
    successStatus: 202,
  }),
  'settings.tlsGet': defineRoute({
    name: 'settings.tlsGet',
    surface: 'console',
    method: 'GET',
    path: '/settings/tls',
    auth: 'authenticated',
    summary: 'Active TLS source and certificate details',
    response: TlsStatus,
  }),
  'settings.tlsUpload': defineRoute({
    name: 'settings.tlsUpload',
    surface: 'console',
    method: 'POST',
    path: '/settings/tls',
    auth: 'admin',
    summary: 'Upload a certificate chain and matching private key; applied live, wins until cleared',
    body: TlsUpload,
    response: TlsStatus,
  }),
  'settings.tlsClear': defineRoute({
    name: 'settings.tlsClear',
    surface: 'console',
    method: 'DELETE',
    path: '/settings/tls',
    auth: 'admin',
    summary: 'Clear the uploaded certificate and serve the startup source again',
    response: TlsStatus,
  }),
} satisfies Record<string, RouteContract>;
