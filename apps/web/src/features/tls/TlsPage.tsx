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

const tlsKey = ['tls'] as const;

const sourceText: Record<TlsStatus['source'], string> = {
  builtin: 'Built-in: the hub’s own CA signs its certificate and renews it',
  external: 'Deployment: certificate files named by SVC_TLS_CERT and SVC_TLS_KEY',
  uploaded: 'Uploaded override: wins over the deployment’s source until cleared',
  disabled: 'Disabled: plain HTTP (only behind a TLS proxy or on loopback)',
};

function CertificateFacts({ title, cert }: { title: string; cert: CertificateDetails }) {
  return (
    <section className="panel" aria-label={title}>
      <h2>{title}</h2>
      <dl className="kv">
        <div>
          <dt>Subject</dt>
          <dd>{cert.subject}</dd>
        </div>
        <div>
          <dt>Issuer</dt>
          <dd>{cert.issuer}</dd>
        </div>
        <div>
          <dt>Valid from</dt>
          <dd>
            <Time value={cert.not_before} />
          </dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>
            <Time value={cert.not_after} />
          </dd>
        </div>
        <div>
          <dt>Fingerprint (SHA-256)</dt>
          <dd>
            <code
              className="fingerprint"
              data-testid={`${title.toLowerCase().replace(/\W+/g, '-')}-fingerprint`}
            >
              {cert.fingerprint_sha256}
            </code>
          </dd>
        </div>
        {cert.subject_alt_names.length > 0 && (
          <div>
            <dt>Names</dt>
            <dd>{cert.subject_alt_names.join(', ')}</dd>
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
      <h2 id="tls-upload-title">Upload a certificate</h2>
      <form className="stack-form" onSubmit={submit} noValidate>
        <PemField
          label="Certificate chain (PEM)"
          problem={problems.certificate}
          hint="The server certificate first, then its intermediates."
          placeholder="-----BEGIN CERTIFICATE-----"
          value={certificate}
          onChange={setCertificate}
          fileLabel="Or read the chain from a file"
          accept=".pem,.crt,.cer"
        />
        <PemField
          label="Private key (PEM)"
          problem={problems.private_key}
          hint="Matching the certificate; stored encrypted and never shown again."
          placeholder="-----BEGIN PRIVATE KEY-----"
          value={privateKey}
          onChange={setPrivateKey}
          fileLabel="Or read the key from a file"
          accept=".pem,.key"
        />
        {upload.isError && <ErrorNotice error={upload.error} />}
        {upload.isSuccess && (
          <p className="notice ok" role="status">
            The hub serves the uploaded certificate now.
          </p>
        )}
        <div>
          <button type="submit" className="primary" disabled={!certificate.trim() || !privateKey.trim()}>
            Upload certificate
          </button>
        </div>
      </form>
      <ConfirmDialog
        open={confirming}
        title="Serve the uploaded certificate?"
        confirmLabel="Upload and serve it"
        busy={upload.isPending}
        onConfirm={() => {
          upload.mutate();
        }}
        onClose={() => {
          setConfirming(false);
        }}
      >
        <p>
          The hub serves it at once for new connections, instead of the {status.source} source, until the
          override is cleared.
        </p>
        {status.source === 'builtin' && (
          <p>
            Agents that pinned the hub’s CA must be able to verify the new certificate (a public CA they
            trust, or one issued by the hub’s CA), or they cannot reconnect.
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}

function ClearOverride() {
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
        Clear the override
      </button>
      <ConfirmDialog
        open={confirming}
        title="Clear the uploaded certificate?"
        confirmLabel="Clear override"
        busy={clear.isPending}
        onConfirm={() => {
          clear.mutate();
        }}
        onClose={() => {
          setConfirming(false);
        }}
      >
        <p>
          The hub serves its startup source again (built-in or the deployment’s files), for new connections.
        </p>
        {clear.isError && <ErrorNotice error={clear.error} />}
      </ConfirmDialog>
    </>
  );
}

export function TlsPage() {
  const tls = useQuery({
    queryKey: tlsKey,
    queryFn: async () => (await hub.call('settings.tlsGet')).data,
  });
  if (tls.isPending) return <Loading label="Loading the TLS status" />;
  if (tls.isError) return <ErrorNotice error={tls.error} retry={() => void tls.refetch()} />;
  const status = tls.data;
  return (
    <section className="page" aria-labelledby="tls-title">
      <div className="page-header">
        <h1 id="tls-title">TLS</h1>
      </div>
      <dl className="facts">
        <div>
          <dt>Source</dt>
          <dd data-testid="tls-source">
            <strong>{status.source}</strong> — {sourceText[status.source]}
          </dd>
        </div>
        <div>
          <dt>Mode (startup)</dt>
          <dd>{status.mode}</dd>
        </div>
        <div>
          <dt>Renews</dt>
          <dd>
            <Time value={status.renews_at} empty="not automatically" />
          </dd>
        </div>
        {status.override_uploaded_at && (
          <div>
            <dt>Override uploaded</dt>
            <dd>
              <Time value={status.override_uploaded_at} />
            </dd>
          </div>
        )}
      </dl>
      <div className="panels tls-panels">
        {status.certificate ? (
          <CertificateFacts title="Server certificate" cert={status.certificate} />
        ) : (
          <section className="panel">
            <h2>Server certificate</h2>
            <p className="muted">None: the hub serves plain HTTP.</p>
          </section>
        )}
        {status.ca && <CertificateFacts title="Certificate authority" cert={status.ca} />}
      </div>
      <div className="actions-row">
        {status.ca_download && (
          <a className="button" href="/api/v1/tls/ca.crt" download="svc-ca.crt">
            Download the CA certificate
          </a>
        )}
        {status.source === 'uploaded' && <ClearOverride />}
      </div>
      <UploadOverride status={status} />
    </section>
  );
}
