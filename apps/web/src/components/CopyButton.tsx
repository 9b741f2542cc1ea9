/**
 * Copies a text to the clipboard and says so next to the button (a live region, so a screen reader hears
 * it). When the browser refuses (no permission, not a secure context), it says how to copy by hand.
 */
import { useEffect, useId, useState } from 'react';
import { useT } from '../i18n/I18nProvider';

type CopyState = 'idle' | 'copied' | 'failed';

export function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useT();
  const [state, setState] = useState<CopyState>('idle');
  useEffect(() => {
    if (state !== 'copied') return;
    const timer = setTimeout(() => {
      setState('idle');
    }, 2500);
    return () => {
      clearTimeout(timer);
    };
  }, [state]);
  return (
    <span className="copy">
      <button
        type="button"
        onClick={() => {
          navigator.clipboard.writeText(text).then(
            () => {
              setState('copied');
            },
            () => {
              setState('failed');
            },
          );
        }}
      >
        {label}
      </button>
      <span className="copy-state" role="status" aria-live="polite">
        {state === 'copied' ? t('common.copied') : state === 'failed' ? t('common.copyRefused') : ''}
      </span>
    </span>
  );
}

/** A value to copy (a key, a token, a command): read-only, selected on focus, with its copy button. */
export function CopyField({
  label,
  value,
  multiline = false,
}: {
  label: string;
  value: string;
  multiline?: boolean;
}) {
  const { t } = useT();
  // From React, not the label: a label in Chinese has no ASCII letters to make an id of.
  const id = useId();
  const select = (event: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => {
    event.currentTarget.select();
  };
  return (
    <div className="field copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        {multiline ? (
          <textarea
            id={id}
            translate="no"
            readOnly
            value={value}
            rows={4}
            spellCheck={false}
            onFocus={select}
          />
        ) : (
          <input id={id} translate="no" readOnly value={value} spellCheck={false} onFocus={select} />
        )}
        <CopyButton text={value} label={t('copy.named', { label })} />
      </div>
    </div>
  );
}
