/**
 * Scopes from the protocol's catalog, grouped by family: everything (`*`), a whole family (`files:*`) or
 * single scopes. Presets fill it for the common cases; the hub checks what is sent.
 */
import {
  grants,
  hasEverything,
  hasFamily,
  readOnlyScopes,
  scopesByFamily,
  setEverything,
  setFamily,
  setScope,
  type ScopeSelection,
} from './scope-selection';
import { useT } from '../../i18n/I18nProvider';

export function ScopePicker({
  value,
  onChange,
  problem,
}: {
  value: ScopeSelection;
  onChange: (value: ScopeSelection) => void;
  problem: string | undefined;
}) {
  const { t, rich } = useT();
  const everything = hasEverything(value);
  return (
    <fieldset className="scope-picker" aria-describedby={problem ? 'scope-problem' : undefined}>
      <legend>{t('keys.scopes')}</legend>
      <div className="scope-presets">
        <label className="check">
          <input
            type="checkbox"
            checked={everything}
            onChange={(e) => {
              onChange(setEverything(value, e.target.checked));
            }}
          />
          {rich('keys.everythingScope', { star: <code>*</code> })}
        </label>
        <button
          type="button"
          className="small"
          onClick={() => {
            onChange(readOnlyScopes());
          }}
        >
          {t('keys.readOnly')}
        </button>
        <button
          type="button"
          className="small"
          onClick={() => {
            onChange([]);
          }}
        >
          {t('keys.clear')}
        </button>
      </div>
      {!everything && (
        <div className="scope-families">
          {scopesByFamily.map(({ family, scopes }) => {
            const whole = hasFamily(value, family);
            return (
              <div
                key={family}
                className="scope-family"
                role="group"
                aria-label={t('keys.familyScopes', { family })}
              >
                <label className="check family">
                  <input
                    type="checkbox"
                    checked={whole}
                    onChange={(e) => {
                      onChange(setFamily(value, family, e.target.checked));
                    }}
                  />
                  <code>{family}:*</code>
                </label>
                {scopes.map((scope) => (
                  <label key={scope} className="check">
                    <input
                      type="checkbox"
                      checked={grants(value, scope)}
                      disabled={whole}
                      onChange={(e) => {
                        onChange(setScope(value, scope, e.target.checked));
                      }}
                    />
                    <code>{scope}</code>
                  </label>
                ))}
              </div>
            );
          })}
        </div>
      )}
      {problem !== undefined && (
        <span className="field-error" id="scope-problem">
          {problem}
        </span>
      )}
    </fieldset>
  );
}
