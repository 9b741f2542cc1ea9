/**
 * TLS: where the hub's certificate comes from (built-in CA, deployment files, an uploaded override, or none),
 * the certificate and CA details, the CA download (only when the hub serves its own CA), and the upload and
 * clear of an override, each confirmed first.
 */
import { useState, type ChangeEvent, type SyntheticEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CertificateDetails, TlsStatus } from '@svc/protocol';
import { hub } from '../../api/client';
import { fieldProblems } from '../../components/form-problems';
import { ConfirmDialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { TextField } from '../../components/TextField';
import { Loading } from '../../components/Loading';
import { Time } from '../../components/Time';
import { useT } from '../../i18n/I18nProvider';

const tlsKey = ['tls'] as const;

function CertificateFacts({
  title,
  testId,
  cert,
}: {
  title: string;
  /** Names the fingerprint for the browser tests, whatever the language. */
  testId: string;
  cert: CertificateDetails;
}) {
  const { t } = useT();
  return (
    <section className="panel" aria-label={title}>
      <h2>{title}</h2>
      <dl className="kv">
        <div>
          <dt>{t('tls.subject')}</dt>
          <dd translate="no">{cert.subject}</dd>
        </div>
        <div>
          <dt>{t('tls.issuer')}</dt>
          <dd translate="no">{cert.issuer}</dd>
        </div>
        <div>
          <dt>{t('tls.validFrom')}</dt>
          <dd>
            <Time value={cert.not_before} />
          </dd>
        </div>
        <div>
          <dt>{t('tls.expires')}</dt>
          <dd>
            <Time value={cert.not_after} />
          </dd>
        </div>
        <div>
          <dt>{t('tls.fingerprint')}</dt>
          <dd>
            <code className="fingerprint" data-testid={`${testId}-fingerprint`}>
              {cert.fingerprint_sha256}
            </code>
          </dd>
        </div>
        {cert.subject_alt_names.length > 0 && (
          <div>
            <dt>{t('tls.names')}</dt>
            <dd translate="no">{cert.subject_alt_names.join(', ')}</dd>
          </div>
        )}
      </dl>
    </section>
  );
}

/** Reads a chosen PEM file into the text area (the file never leaves the browser but in the upload). */
function pemFromFile(set: (text: string) => void) {
  return (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    void file.text().then(set);
  };
}

/** A PEM text area, with a file input that fills it from a file instead. */
function PemField({
  label,
  problem,
  hint,
  placeholder,
  value,
  onChange,
  fileLabel,
  accept,
}: {
  label: string;
  problem: string | undefined;
  hint: string;
  placeholder: string;
  value: string;
  onChange: (text: string) => void;
  fileLabel: string;
  /** The file input's accepted extensions. */
  accept: string;
}) {
  return (
    <>
      <TextField
        label={label}
        problem={problem}
        hint={hint}
        multiline
        rows={5}
        spellCheck={false}
        className="mono"
        value={value}
        placeholder={placeholder}
        translate="no"
        onChange={onChange}
      />
      <label className="file-input">
        {fileLabel}
        <input type="file" accept={accept} onChange={pemFromFile(onChange)} />
      </label>
    </>
  );
}

function UploadOverride({ status }: { status: TlsStatus }) {
  const { rich, t } = useT();
  const client = useQueryClient();
  const [certificate, setCertificate] = useState('');
  const [privateKey, setPrivateKey] = useState('');
  const [confirming, setConfirming] = useState(false);
  const upload = useMutation({
    mutationFn: async () =>
      (await hub.call('settings.tlsUpload', { body: { certificate, private_key: privateKey } })).data,
    onSuccess: (next) => {
      client.setQueryData(tlsKey, next);
      setCertificate('');
      setPrivateKey('');
    },
    onSettled: () => {
      setConfirming(false);
    },
  });
  const problems = fieldProblems(upload.error);
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    setConfirming(true);
  };
  return (
    <section className="panel" aria-labelledby="tls-upload-title">
      <h2 id="tls-upload-title">{t('tls.uploadTitle')}</h2>
      <form className="stack-form" onSubmit={submit} noValidate>
        <PemField
          label={t('tls.chain')}
          problem={problems.certificate}
          hint={t('tls.chainHint')}
          placeholder="-----BEGIN CERTIFICATE-----"
          value={certificate}
          onChange={setCertificate}
          fileLabel={t('tls.chainFile')}
          accept=".pem,.crt,.cer"
        />
        <PemField
          label={t('tls.key')}
          problem={problems.private_key}
          hint={t('tls.keyHint')}
          placeholder="-----BEGIN PRIVATE KEY-----"
          value={privateKey}
          onChange={setPrivateKey}
          fileLabel={t('tls.keyFile')}
          accept=".pem,.key"
        />
        {upload.isError && <ErrorNotice error={upload.error} />}
        {upload.isSuccess && (
          <p className="notice ok" role="status">
            {t('tls.uploaded')}
          </p>
        )}
        <div>
          <button type="submit" className="primary" disabled={!certificate.trim() || !privateKey.trim()}>
            {t('tls.upload')}
          </button>
        </div>
      </form>
      <ConfirmDialog
        open={confirming}
        title={t('tls.uploadConfirmTitle')}
        confirmLabel={t('tls.uploadConfirm')}
        busy={upload.isPending}
        onConfirm={() => {
          upload.mutate();
        }}
        onClose={() => {
          setConfirming(false);
        }}
      >
        <p>{rich('tls.uploadText', { source: <strong translate="no">{status.source}</strong> })}</p>
        {status.source === 'builtin' && <p>{t('tls.uploadPinned')}</p>}
      </ConfirmDialog>
    </section>
  );
}

function ClearOverride() {
  const { t } = useT();
  const client = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const clear = useMutation({
    mutationFn: async () => (await hub.call('settings.tlsClear')).data,
    onSuccess: (next) => {
      client.setQueryData(tlsKey, next);
      setConfirming(false);
    },
  });
  return (
    <>
      <button
        type="button"
        className="danger"
        onClick={() => {
          clear.reset();
          setConfirming(true);
        }}
      >
        {t('tls.clear')}
      </button>
      <ConfirmDialog
        open={confirming}
        title={t('tls.clearTitle')}
        confirmLabel={t('tls.clearConfirm')}
        busy={clear.isPending}
        onConfirm={() => {
          clear.mutate();
        }}
        onClose={() => {
          setConfirming(false);
        }}
      >
        <p>{t('tls.clearText')}</p>
        {clear.isError && <ErrorNotice error={clear.error} />}
      </ConfirmDialog>
    </>
  );
}

export function TlsPage() {
  const { t } = useT();
  const tls = useQuery({
    queryKey: tlsKey,
    queryFn: async () => (await hub.call('settings.tlsGet')).data,
  });
  if (tls.isPending) return <Loading label={t('tls.loading')} />;
  if (tls.isError) return <ErrorNotice error={tls.error} retry={() => void tls.refetch()} />;
  const status = tls.data;
  return (
    <section className="page" aria-labelledby="tls-title">
      <div className="page-header">
        <h1 id="tls-title">{t('tls.title')}</h1>
      </div>
      <dl className="facts">
        <div>
          <dt>{t('tls.source')}</dt>
          <dd data-testid="tls-source">
            <strong translate="no">{status.source}</strong> — {t('tls.sourceText', { source: status.source })}
          </dd>
        </div>
        <div>
          <dt>{t('tls.mode')}</dt>
          <dd translate="no">{status.mode}</dd>
        </div>
        <div>
          <dt>{t('tls.renews')}</dt>
          <dd>
            <Time value={status.renews_at} empty={t('tls.notAutomatically')} />
          </dd>
        </div>
        {status.override_uploaded_at && (
          <div>
            <dt>{t('tls.overrideUploaded')}</dt>
            <dd>
              <Time value={status.override_uploaded_at} />
            </dd>
          </div>
        )}
      </dl>
      <div className="panels tls-panels">
        {status.certificate ? (
          <CertificateFacts
            title={t('tls.serverCertificate')}
            testId="server-certificate"
            cert={status.certificate}
          />
        ) : (
          <section className="panel">
            <h2>{t('tls.serverCertificate')}</h2>
            <p className="muted">{t('tls.plainHttp')}</p>
          </section>
        )}
        {status.ca && (
          <CertificateFacts title={t('tls.authority')} testId="certificate-authority" cert={status.ca} />
        )}
      </div>
      <div className="actions-row">
        {status.ca_download && (
          <a className="button" href="/api/v1/tls/ca.crt" download="svc-ca.crt">
            {t('tls.downloadCa')}
          </a>
        )}
        {status.source === 'uploaded' && <ClearOverride />}
      </div>
      <UploadOverride status={status} />
    </section>
  );
}
