/**
 * The terminal page (`/sessions/:id`): live terminal sessions as tabs (decision 0091), the one in the URL
 * shown. Each tab keeps its own attach WebSocket and screen while hidden; a reload re-attaches every tab and
 * the hub replays the recent screen first; so does a transient drop (the console has no device settings:
 * re-attaching is always on here, as `autoReconnect` defaults on in the mobile app). Until a shell prints,
 * its status says it is starting, and why that may take long (decision 0064), or that it did not start.
 * Beside the tabs: saved snippets and bookmarks; a new tab opens on an asset or from a bookmark.
 */
import { useCallback, useEffect, useState, type KeyboardEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery } from '@tanstack/react-query';
import type { Bookmark } from '@svc/protocol';
import { hub } from '../../api/client';
import { AssetPicker, type PickedAsset } from '../../components/AssetPicker';
import { ErrorNotice } from '../../components/ErrorNotice';
import { useAssetName } from '../../components/use-asset-name';
import { useT } from '../../i18n/I18nProvider';
import { BookmarksPanel } from './BookmarksPanel';
import { ShellStartNote } from './ShellStartNote';
import { SnippetsPanel } from './SnippetsPanel';
import { cdInput } from './terminal-input';
import {
  loadTabs,
  nextAfterClose,
  saveTabs,
  tabBeside,
  withTab,
  withoutTab,
  type TerminalTab,
} from './terminal-tabs';
import {
  TerminalView,
  useTerminalStatusText,
  type TerminalHandle,
  type TerminalStatus,
} from './TerminalView';

const copyOnSelectKey = 'svc.terminal.copy-on-select';
const connecting: TerminalStatus = { kind: 'connecting' };

function sessionPath(id: string): string {
  return `/sessions/${encodeURIComponent(id)}`;
}

/** The asset a session runs on (null while loading). */
function useSessionAsset(sessionId: string): string | null {
  const session = useQuery({
    queryKey: ['sessions', 'one', sessionId],
    queryFn: async () => (await hub.call('sessions.get', { params: { id: sessionId } })).data,
    staleTime: 60_000,
    retry: false,
  });
  return session.data?.asset_id ?? null;
}

function TabButton({
  tab,
  selected,
  status,
  onSelect,
  onClose,
  onKeyDown,
}: {
  tab: TerminalTab;
  selected: boolean;
  status: TerminalStatus;
  onSelect: () => void;
  onClose: () => void;
  onKeyDown: (event: KeyboardEvent) => void;
}) {
  const { t } = useT();
  const statusText = useTerminalStatusText();
  const assetName = useAssetName(useSessionAsset(tab.id));
  return (
    <button
      type="button"
      role="tab"
      id={`tab-${tab.id}`}
      aria-selected={selected}
      aria-controls={`panel-${tab.id}`}
      tabIndex={selected ? 0 : -1}
      className={selected ? 'terminal-tab selected' : 'terminal-tab'}
      onClick={onSelect}
      onKeyDown={onKeyDown}
    >
      {assetName === null ? (
        <span className="terminal-tab-name">{t('sessions.terminal')}</span>
      ) : (
        <span className="terminal-tab-name" translate="no">
          {assetName}
        </span>
      )}{' '}
      <span className="terminal-tab-state">{statusText(status)}</span>
      {/* A pointer's shortcut: the keyboard closes a tab with Delete, or the Close tab button. */}
      <span
        className="terminal-tab-close"
        aria-hidden="true"
        translate="no"
        title={t('sessions.closeTabTitle')}
        onClick={(event) => {
          event.stopPropagation();
          onClose();
        }}
      >
        ×
      </span>
    </button>
  );
}

export function TerminalPage() {
  const { t } = useT();
  const statusText = useTerminalStatusText();
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const [tabs, setTabs] = useState<TerminalTab[]>(() => withTab(loadTabs(), { id }));
  const [statuses, setStatuses] = useState<Readonly<Record<string, TerminalStatus>>>({});
  const [handles, setHandles] = useState<Readonly<Record<string, TerminalHandle | undefined>>>({});
  const [copyOnSelect, setCopyOnSelect] = useState(() => localStorage.getItem(copyOnSelectKey) === 'true');
  const [clipboardProblem, setClipboardProblem] = useState<string | null>(null);
  const activeAssetId = useSessionAsset(id);
  const activeAssetName = useAssetName(activeAssetId);

  useEffect(() => {
    if (id !== '') setTabs((current) => withTab(current, { id }));
  }, [id]);
  useEffect(() => {
    saveTabs(tabs);
  }, [tabs]);

  const status = statuses[id] ?? connecting;
  const terminal = handles[id] ?? null;

  const show = useCallback(
    (tabId: string | null) => {
      void navigate(tabId === null ? '/sessions' : sessionPath(tabId));
    },
    [navigate],
  );

  const open = useMutation({
    mutationFn: async (target: { assetId: string; directory?: string }) => {
      const session = (
        await hub.call('sessions.create', {
          params: { id: target.assetId },
          body: { kind: 'terminal', cols: 120, rows: 32 },
        })
      ).data;
      return { session, target };
    },
    onSuccess: ({ session, target }) => {
      const tab: TerminalTab =
        target.directory === undefined
          ? { id: session.id }
          : { id: session.id, initialInput: cdInput(target.directory) };
      setTabs((current) => withTab(current, tab));
      show(session.id);
    },
  });

  const close = async (tabId: string) => {
    const ended = statuses[tabId]?.kind === 'ended';
    setTabs((current) => withoutTab(current, tabId));
    if (tabId === id) show(nextAfterClose(tabs, tabId));
    // An ended session needs no closing; one that is gone already is no error worth showing here.
    if (!ended) await hub.call('sessions.close', { params: { id: tabId } }).catch(() => undefined);
  };

  const onTabKey = (tabId: string) => (event: KeyboardEvent) => {
    const moves: Record<string, () => string | null> = {
      ArrowRight: () => tabBeside(tabs, tabId, 1),
      ArrowLeft: () => tabBeside(tabs, tabId, -1),
      Home: () => tabs[0]?.id ?? null,
      End: () => tabs[tabs.length - 1]?.id ?? null,
    };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      const target = move();
      show(target);
      if (target) document.getElementById(`tab-${target}`)?.focus();
    } else if (event.key === 'Delete') {
      event.preventDefault();
      void close(tabId);
    }
  };

  const clipboard = async (action: 'copy' | 'paste') => {
    if (!terminal) return;
    try {
      setClipboardProblem(null);
      if (action === 'paste') await terminal.pasteClipboard();
      else if (!(await terminal.copySelection())) setClipboardProblem(t('sessions.selectFirst'));
    } catch {
      setClipboardProblem(
        action === 'paste' ? t('sessions.noRead', { keys: 'Ctrl+Shift+V' }) : t('sessions.noWrite'),
      );
    }
    terminal.focus();
  };

  const openBookmark = (bookmark: Bookmark) => {
    open.mutate({ assetId: bookmark.asset_id, directory: bookmark.directory });
  };
  const currentAsset: PickedAsset | null =
    activeAssetId === null ? null : { id: activeAssetId, name: activeAssetName ?? activeAssetId };

  return (
    <section className="page terminal-page" aria-labelledby="terminal-title">
      <p className="breadcrumbs">
        <Link to="/sessions">{t('sessions.title')}</Link> /
      </p>
      <div className="page-header">
        <h1 id="terminal-title">{t('sessions.terminal')}</h1>
        <span role="status" className={status.kind === 'live' ? 'chip state-ok' : 'chip'}>
          {statusText(status)}
        </span>
        {(status.kind === 'live' || status.kind === 'starting') && (
          <button type="button" onClick={() => void hub.call('sessions.close', { params: { id } })}>
            {t('sessions.closeSession')}
          </button>
        )}
      </div>
      <div className="terminal-layout">
        <div className="terminal-main">
          <div className="terminal-tabbar">
            <div role="tablist" aria-label={t('sessions.terminals')} className="terminal-tabs">
              {tabs.map((tab) => (
                <TabButton
                  key={tab.id}
                  tab={tab}
                  selected={tab.id === id}
                  status={statuses[tab.id] ?? connecting}
                  onSelect={() => {
                    show(tab.id);
                  }}
                  onClose={() => void close(tab.id)}
                  onKeyDown={onTabKey(tab.id)}
                />
              ))}
            </div>
            <button type="button" className="small" onClick={() => void close(id)}>
              {t('sessions.closeTab')}
            </button>
          </div>
          <div className="terminal-toolbar">
            <div className="terminal-new">
              <AssetPicker
                label={t('sessions.newTabOn')}
                picked={new Set()}
                disabled={open.isPending}
                onPick={(asset) => {
                  open.mutate({ assetId: asset.id });
                }}
              />
            </div>
            <button
              type="button"
              className="small"
              disabled={!terminal}
              onClick={() => void clipboard('copy')}
            >
              {t('sessions.copy')}
            </button>
            <button
              type="button"
              className="small"
              disabled={!terminal}
              onClick={() => void clipboard('paste')}
            >
              {t('sessions.paste')}
            </button>
            <label className="checkbox">
              <input
                type="checkbox"
                checked={copyOnSelect}
                onChange={(event) => {
                  setCopyOnSelect(event.target.checked);
                  localStorage.setItem(copyOnSelectKey, String(event.target.checked));
                }}
              />{' '}
              {t('sessions.copyOnSelect')}
            </label>
          </div>
          {open.isError && <ErrorNotice error={open.error} />}
          {clipboardProblem && (
            <p className="field-error" role="alert">
              {clipboardProblem}
            </p>
          )}
          <ShellStartNote status={status} />
          {tabs.map((tab) => (
            <div
              key={tab.id}
              role="tabpanel"
              id={`panel-${tab.id}`}
              aria-labelledby={`tab-${tab.id}`}
              hidden={tab.id !== id}
            >
              <TerminalView
                sessionId={tab.id}
                active={tab.id === id}
                autoReconnect
                copyOnSelect={copyOnSelect}
                onStatus={(next) => {
                  setStatuses((current) => ({ ...current, [tab.id]: next }));
                }}
                handle={(next) => {
                  setHandles((current) => ({ ...current, [tab.id]: next ?? undefined }));
                }}
                {...(tab.initialInput === undefined
                  ? {}
                  : {
                      initialInput: tab.initialInput,
                      onInitialInputSent: () => {
                        setTabs((current) => current.map((t) => (t.id === tab.id ? { id: t.id } : t)));
                      },
                    })}
              />
            </div>
          ))}
        </div>
        <aside className="terminal-aside" aria-label={t('sessions.aside')}>
          <SnippetsPanel terminal={terminal} />
          <BookmarksPanel currentAsset={currentAsset} onOpen={openBookmark} opening={open.isPending} />
        </aside>
      </div>
    </section>
  );
}
