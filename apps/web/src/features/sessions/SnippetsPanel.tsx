/**
 * Saved snippets beside the terminal (decision 0091): the caller's personal ones and every shared one. Insert
 * types a snippet into the shown terminal without running it (its closing line breaks dropped, the rest as a
 * bracketed paste); Run types it and presses Enter. New, Edit and Delete through the console's form kit.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Snippet, SnippetScope } from '@svc/protocol';
import { hub } from '../../api/client';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { EditDeleteButtons } from '../../components/EditDeleteButtons';
import { ErrorNotice } from '../../components/ErrorNotice';
import { FormDialog } from '../../components/FormDialog';
import { FormField } from '../../components/FormField';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';
import { insertWouldRun, snippetInsertText } from './terminal-input';
import type { TerminalHandle } from './TerminalView';

const snippetsKey = ['terminal-snippets'] as const;

interface Draft {
  name: string;
  text: string;
  description: string;
  scope: SnippetScope;
}

function SnippetForm({ editing, onClose }: { editing: Snippet | null; onClose: () => void }) {
  const { t } = useT();
  const [draft, setDraft] = useState<Draft>({
    name: editing?.name ?? '',
    text: editing?.text ?? '',
    description: editing?.description ?? '',
    scope: editing?.scope ?? 'personal',
  });
  const save = useResourceMutation({
    mutationFn: async (body: Draft) => {
      const fields = { ...body, description: body.description === '' ? null : body.description };
      return editing
        ? (await hub.call('snippets.update', { params: { id: editing.id }, body: fields })).data
        : (await hub.call('snippets.create', { body: fields })).data;
    },
    invalidates: [snippetsKey],
    onSuccess: onClose,
  });
  const set = (change: Partial<Draft>) => {
    setDraft((d) => ({ ...d, ...change }));
  };
  return (
    <FormDialog
      title={editing ? t('sessions.editSnippet', { name: editing.name }) : t('sessions.newSnippet')}
      mutation={save}
      onSubmit={() => {
        save.mutate(draft);
      }}
      onClose={onClose}
      submitLabel={editing ? t('sessions.saveSnippet') : t('sessions.createSnippet')}
    >
      <TextField
        label={t('sessions.name')}
        value={draft.name}
        onChange={(name) => {
          set({ name });
        }}
        problem={save.problems.name}
        autoFocus
        required
      />
      <TextField
        label={t('sessions.text')}
        hint={t('sessions.textHint')}
        value={draft.text}
        onChange={(text) => {
          set({ text });
        }}
        problem={save.problems.text}
        multiline
        rows={5}
        spellCheck={false}
        className="mono"
        required
      />
      <TextField
        label={t('sessions.description')}
        value={draft.description}
        onChange={(description) => {
          set({ description });
        }}
        problem={save.problems.description}
      />
      <FormField label={t('sessions.scope')} hint={t('sessions.scopeHint')} problem={save.problems.scope}>
        {(props) => (
          <select
            {...props}
            value={draft.scope}
            onChange={(e) => {
              set({ scope: e.target.value === 'shared' ? 'shared' : 'personal' });
            }}
          >
            <option value="personal">{t('sessions.scopeOption', { scope: 'personal' })}</option>
            <option value="shared">{t('sessions.scopeOption', { scope: 'shared' })}</option>
          </select>
        )}
      </FormField>
    </FormDialog>
  );
}

export function SnippetsPanel({ terminal }: { terminal: TerminalHandle | null }) {
  const { t } = useT();
  const [editing, setEditing] = useState<Snippet | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Snippet | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const snippets = useQuery({
    queryKey: snippetsKey,
    queryFn: async () => (await hub.call('snippets.list', { query: { per_page: 500 } })).data,
  });
  const remove = useResourceMutation({
    mutationFn: async (snippet: Snippet) =>
      (await hub.call('snippets.delete', { params: { id: snippet.id } })).data,
    invalidates: [snippetsKey],
    onSuccess: () => {
      setDeleting(null);
    },
  });

  const insert = (snippet: Snippet, run: boolean) => {
    if (!terminal) return;
    const text = snippetInsertText(snippet.text);
    if (!run && insertWouldRun(text, terminal.bracketedPaste())) {
      setRefusal(t('sessions.wouldRun', { name: snippet.name }));
      return;
    }
    setRefusal(null);
    terminal.paste(text);
    if (run) terminal.type('\r');
    terminal.focus();
  };

  return (
    <section className="terminal-side-panel" aria-labelledby="snippets-title">
      <div className="panel-header">
        <h2 id="snippets-title">{t('sessions.snippets')}</h2>
        <button
          type="button"
          className="small"
          onClick={() => {
            setEditing('new');
          }}
        >
          {t('sessions.newSnippet')}
        </button>
      </div>
      {snippets.isError && <ErrorNotice error={snippets.error} />}
      {refusal && (
        <p className="field-error" role="alert">
          {refusal}
        </p>
      )}
      {snippets.data?.length === 0 && <p className="muted">{t('sessions.noSnippets')}</p>}
      <ul className="terminal-side-list" aria-label={t('sessions.snippets')}>
        {snippets.data?.map((snippet) => (
          <li key={snippet.id}>
            <div>
              <strong translate="no">{snippet.name}</strong>{' '}
              {snippet.scope === 'shared' && <span className="chip">{t('sessions.shared')}</span>}
              {snippet.description && (
                <div className="muted" translate="no">
                  {snippet.description}
                </div>
              )}
              <code className="snippet-text">{snippet.text}</code>
            </div>
            <div className="terminal-side-actions">
              <button
                type="button"
                className="small"
                aria-label={t('sessions.insertNamed', { name: snippet.name })}
                disabled={!terminal}
                onClick={() => {
                  insert(snippet, false);
                }}
              >
                {t('sessions.insert')}
              </button>
              <button
                type="button"
                className="small"
                aria-label={t('sessions.runNamed', { name: snippet.name })}
                disabled={!terminal}
                onClick={() => {
                  insert(snippet, true);
                }}
              >
                {t('sessions.run')}
              </button>
              {snippet.can_edit && (
                <EditDeleteButtons
                  small
                  name={snippet.name}
                  onEdit={() => {
                    setEditing(snippet);
                  }}
                  onDelete={() => {
                    setDeleting(snippet);
                  }}
                />
              )}
            </div>
          </li>
        ))}
      </ul>
      {editing !== null && (
        <SnippetForm
          editing={editing === 'new' ? null : editing}
          onClose={() => {
            setEditing(null);
          }}
        />
      )}
      <ConfirmMutationDialog
        record={deleting}
        title={(s) => t('sessions.deleteSnippetTitle', { name: s.name })}
        confirmLabel={t('sessions.deleteSnippet')}
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {(s) => <p>{t('sessions.deleteSnippetText', { scope: s.scope })}</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
