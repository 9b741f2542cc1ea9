/**
 * The language menu: each language in its own words, the choice kept for the next visit. On the sign-in
 * page and in the console's header.
 */
import { useId } from 'react';
import { useT } from './I18nProvider';
import { languageNames, languages, type LanguageChoice } from './languages';

export function LanguageSelect({ className }: { className?: string }) {
  const { t, language, setLanguage } = useT();
  const id = useId();
  return (
    <div className={className ? `language-select ${className}` : 'language-select'}>
      <label htmlFor={id} className="visually-hidden">
        {t('language.label')}
      </label>
      <select
        id={id}
        value={language}
        title={t('language.label')}
        onChange={(event) => {
          void setLanguage(event.target.value as LanguageChoice);
        }}
      >
        {languages.map((code) => (
          <option key={code} value={code} lang={code}>
            {languageNames[code]}
          </option>
        ))}
        {language === 'pseudo' && <option value="pseudo">{t('language.pseudo')}</option>}
      </select>
    </div>
  );
}
