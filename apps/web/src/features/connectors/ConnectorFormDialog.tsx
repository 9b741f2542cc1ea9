/**
 * Add or edit a connector: kind, name, URL, credentials (write-only: left empty when editing keeps them), and
 * how the upstream's certificate is checked; skipping the check is a choice that says what it means.
 */
import { useState } from 'react';
import {
  connectorKinds,
  connectorTlsModes,
  type Connector,
  type ConnectorKind,
  type ConnectorTlsMode,
} from '@svc/protocol';
import { hub } from '../../api/client';
import { FormDialog } from '../../components/FormDialog';
import { FormField } from '../../components/FormField';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';

export const connectorsKey = ['connectors'] as const;

export const kindLabels: Record<ConnectorKind, string> = {
  virt: 'Proxmox VE',
  backup: 'Proxmox Backup Server',
  nas: 'TrueNAS',
  stacks: 'Portainer',
  homeauto: 'Home Assistant',
};

export function ConnectorFormDialog({
  connector,
  onClose,
}: {
  connector: Connector | null;
  onClose: () => void;
}) {
  const { t } = useT();
  const [kind, setKind] = useState<ConnectorKind>(connector?.kind ?? 'virt');
  const [name, setName] = useState(connector?.name ?? '');
  const [baseUrl, setBaseUrl] = useState(connector?.base_url ?? '');
  const [credentials, setCredentials] = useState('');
  const [username, setUsername] = useState(connector?.username ?? '');
  const [tlsMode, setTlsMode] = useState<ConnectorTlsMode>(connector?.tls_mode ?? 'system');
  const [ca, setCa] = useState(connector?.tls_ca ?? '');
  const [fingerprint, setFingerprint] = useState(connector?.tls_fingerprint ?? '');
  const [enabled, setEnabled] = useState(connector?.enabled ?? true);
  const save = useResourceMutation({
    mutationFn: async () => {
      const common = {
        name: name.trim(),
        base_url: baseUrl.trim(),
        username: username.trim() === '' ? null : username.trim(),
        tls_mode: tlsMode,
        tls_ca: tlsMode === 'pinned_ca' ? ca.trim() : null,
        tls_fingerprint: tlsMode === 'fingerprint' ? fingerprint.trim() : null,
        enabled,
      };
      if (connector) {
        const body = credentials === '' ? common : { ...common, credentials };
        await hub.call('connectors.update', { params: { id: connector.id }, body });
      } else {
        await hub.call('connectors.create', { body: { ...common, kind, credentials } });
      }
    },
    invalidates: [connectorsKey],
    onSuccess: onClose,
  });
  const { problems } = save;
  return (
    <FormDialog
      title={connector ? t('common.editNamed', { name: connector.name }) : t('connectors.new')}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel={connector ? t('common.save') : t('connectors.add')}
    >
      {!connector && (
        <FormField label={t('connectors.kind')} problem={problems.kind}>
          {(props) => (
            <select
              {...props}
              value={kind}
              onChange={(e) => {
                setKind(e.target.value as ConnectorKind);
              }}
            >
              {connectorKinds.map((k) => (
                <option key={k} value={k} translate="no">
                  {kindLabels[k]}
                </option>
              ))}
            </select>
          )}
        </FormField>
      )}
      <TextField
        label={t('connectors.name')}
        problem={problems.name}
        value={name}
        required
        autoFocus
        onChange={setName}
      />
      <TextField
        label={t('connectors.baseUrl')}
        hint={t('connectors.baseUrlHint', { example: 'https://pve.lan:8006' })}
        problem={problems.base_url}
        type="url"
        value={baseUrl}
        required
        onChange={setBaseUrl}
      />
      <TextField
        label={t('connectors.credentials')}
        hint={connector ? t('connectors.credentialsKept') : t('connectors.credentialsHint', { kind })}
        problem={problems.credentials}
        type="password"
        autoComplete="off"
        value={credentials}
        onChange={setCredentials}
      />
      {(kind === 'nas' || connector?.kind === 'nas') && (
        <TextField
          label={t('connectors.username')}
          problem={problems.username}
          value={username}
          onChange={setUsername}
        />
      )}
      <fieldset className="field">
        <legend>{t('connectors.tlsCheck')}</legend>
        <div role="radiogroup" aria-label={t('connectors.tlsCheck')} className="tls-choices">
          {connectorTlsModes.map((mode) => (
            <label key={mode} className={mode === 'insecure' ? 'check tls-insecure' : 'check'}>
              <input
                type="radio"
                name="tls_mode"
                checked={tlsMode === mode}
                onChange={() => {
                  setTlsMode(mode);
                }}
              />
              {t('connectors.tlsMode', { mode })}
            </label>
          ))}
        </div>
        {tlsMode === 'insecure' && (
          <p className="field-error" role="note">
            {t('connectors.insecureWarning')}
          </p>
        )}
      </fieldset>
      {tlsMode === 'pinned_ca' && (
        <TextField
          label={t('connectors.caPem')}
          problem={problems.tls_ca}
          multiline
          rows={5}
          value={ca}
          onChange={setCa}
        />
      )}
      {tlsMode === 'fingerprint' && (
        <TextField
          label={t('connectors.fingerprint')}
          problem={problems.tls_fingerprint}
          value={fingerprint}
          onChange={setFingerprint}
        />
      )}
      <label className="check">
        <input
          type="checkbox"
          checked={enabled}
          onChange={(e) => {
            setEnabled(e.target.checked);
          }}
        />
        {t('connectors.enabled')}
      </label>
    </FormDialog>
  );
}
