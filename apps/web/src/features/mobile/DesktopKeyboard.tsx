/**
 * The phone's keyboard for its desktop: "Keyboard" focuses a hidden text input, so the phone shows its own
 * keyboard, and what is typed there goes to the desktop as key events (characters as their keysyms, Enter and
 * Backspace as Return and BackSpace); a row adds the keys a phone lacks (Esc, Tab, the arrows), Ctrl and Alt as
 * toggles held for the next key, and Ctrl+Alt+Del.
 */
import { useEffect, useRef, useState } from 'react';
import { useT } from '../../i18n/I18nProvider';
import type { DesktopKeys } from '../sessions/DesktopScreen';

/** X keysyms (X11/keysymdef.h) with their KeyboardEvent.code. */
const named = {
  Escape: { keysym: 0xff1b, code: 'Escape' },
  Tab: { keysym: 0xff09, code: 'Tab' },
  Enter: { keysym: 0xff0d, code: 'Enter' },
  Backspace: { keysym: 0xff08, code: 'Backspace' },
  ArrowLeft: { keysym: 0xff51, code: 'ArrowLeft' },
  ArrowUp: { keysym: 0xff52, code: 'ArrowUp' },
  ArrowRight: { keysym: 0xff53, code: 'ArrowRight' },
  ArrowDown: { keysym: 0xff54, code: 'ArrowDown' },
} as const;
type Named = keyof typeof named;
const modifiers = {
  Ctrl: { keysym: 0xffe3, code: 'ControlLeft' },
  Alt: { keysym: 0xffe9, code: 'AltLeft' },
} as const;
type Modifier = keyof typeof modifiers;

/** Esc and Tab are the keys' own names (data); the arrows are named in the reader's language. */
const row: { key: Named; text: string; arrow: boolean }[] = [
  { key: 'Escape', text: 'Esc', arrow: false },
  { key: 'Tab', text: 'Tab', arrow: false },
  { key: 'ArrowLeft', text: '←', arrow: true },
  { key: 'ArrowUp', text: '↑', arrow: true },
  { key: 'ArrowDown', text: '↓', arrow: true },
  { key: 'ArrowRight', text: '→', arrow: true },
];

function isNamed(key: string): key is Named {
  return Object.hasOwn(named, key);
}

/** A character's keysym: Latin-1 is its code point, the rest of Unicode is 0x01000000 plus it. */
function charKeysym(char: string): number {
  const point = char.codePointAt(0) ?? 0;
  return point < 0x100 ? point : 0x01000000 + point;
}

export function DesktopKeyboard({ keys }: { keys: DesktopKeys | null }) {
  const { t } = useT();
  const [open, setOpen] = useState(false);
  const [held, setHeld] = useState<ReadonlySet<Modifier>>(new Set());
  const input = useRef<HTMLInputElement>(null);
  const heldRef = useRef(held);
  heldRef.current = held;

  /** One key, with the held modifiers round it (then let go). */
  const press = (keysym: number, code: string | null) => {
    if (!keys) return;
    const mods = [...heldRef.current].map((m) => modifiers[m]);
    for (const m of mods) keys.sendKey(m.keysym, m.code, true);
    keys.sendKey(keysym, code);
    for (const m of mods.reverse()) keys.sendKey(m.keysym, m.code, false);
    if (mods.length > 0) setHeld(new Set());
  };
  const pressNamed = (key: Named) => {
    press(named[key].keysym, named[key].code);
  };
  const pressRef = useRef(pressNamed);
  pressRef.current = pressNamed;

  // A phone keyboard's Backspace on an empty input (no key code, only an input intent) and a line break.
  useEffect(() => {
    const element = input.current;
    if (!element) return;
    const onBeforeInput = (event: InputEvent) => {
      if (event.inputType === 'deleteContentBackward' && element.value === '') {
        event.preventDefault();
        pressRef.current('Backspace');
      } else if (event.inputType === 'insertLineBreak' || event.inputType === 'insertParagraph') {
        event.preventDefault();
        pressRef.current('Enter');
      }
    };
    element.addEventListener('beforeinput', onBeforeInput);
    return () => {
      element.removeEventListener('beforeinput', onBeforeInput);
    };
  }, [open]);

  const sendTyped = (element: HTMLInputElement) => {
    for (const char of element.value) press(charKeysym(char), null);
    element.value = '';
  };
  // Buttons keep the focus on the input, so the phone's keyboard stays up.
  const keepFocus = (event: { preventDefault: () => void }) => {
    event.preventDefault();
  };
  const toggle = (m: Modifier) => {
    setHeld((now) => {
      const next = new Set(now);
      if (next.has(m)) next.delete(m);
      else next.add(m);
      return next;
    });
  };

  return (
    <div className="m-desktop-keyboard">
      <p className="m-desktop-keys">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={open ? 'm-desktop-keys' : undefined}
          disabled={!keys}
          onMouseDown={keepFocus}
          onClick={() => {
            // The phone's keyboard may have been put away (the input lost its focus): bring it back first.
            const element = input.current;
            if (element && (!open || document.activeElement !== element)) {
              setOpen(true);
              element.focus();
            } else {
              setOpen(false);
              element?.blur();
            }
          }}
        >
          {t('mobile.keyboard')}
        </button>
        <button
          type="button"
          translate="no"
          disabled={!keys}
          onMouseDown={keepFocus}
          onClick={() => keys?.sendCtrlAltDel()}
        >
          Ctrl+Alt+Del
        </button>
      </p>
      <input
        ref={input}
        className="m-desktop-typing"
        aria-label={t('mobile.typeOnDesktop')}
        type="text"
        autoComplete="off"
        autoCorrect="off"
        autoCapitalize="off"
        spellCheck={false}
        enterKeyHint="send"
        onKeyDown={(event) => {
          const { key } = event;
          if (isNamed(key)) {
            event.preventDefault();
            pressNamed(key);
          }
        }}
        onInput={(event) => {
          // While the phone composes a word, wait for the composition to end.
          if (event.nativeEvent.isComposing) return;
          sendTyped(event.currentTarget);
        }}
        onCompositionEnd={(event) => {
          sendTyped(event.currentTarget);
        }}
      />
      {open ? (
        <p className="m-desktop-keys" id="m-desktop-keys" aria-label={t('mobile.missingKeys')} role="group">
          {(Object.keys(modifiers) as Modifier[]).map((m) => (
            <button
              key={m}
              type="button"
              translate="no"
              aria-pressed={held.has(m)}
              disabled={!keys}
              onMouseDown={keepFocus}
              onClick={() => {
                toggle(m);
              }}
            >
              {m}
            </button>
          ))}
          {row.map(({ key, text, arrow }) => (
            <button
              key={key}
              type="button"
              translate="no"
              aria-label={arrow ? t('mobile.arrow', { key }) : undefined}
              disabled={!keys}
              onMouseDown={keepFocus}
              onClick={() => {
                pressNamed(key);
              }}
            >
              {text}
            </button>
          ))}
        </p>
      ) : null}
    </div>
  );
}
