/** A snippet to copy: its title, the text as it will be pasted (wrapped on screen, never changed), a copy button. */
import { useId } from 'react';
import { CopyButton } from '../../components/CopyButton';
import { useT } from '../../i18n/I18nProvider';

export function Snippet({
  title,
  text,
  isFileName = false,
}: {
  title: string;
  text: string;
  /** The title is a file's name (data, not translated). */
  isFileName?: boolean;
}) {
  const { t } = useT();
  const captionId = useId();
  return (
    <figure className="snippet" aria-labelledby={captionId}>
      <div className="snippet-head">
        <figcaption id={captionId} translate={isFileName ? 'no' : undefined}>
          {title}
        </figcaption>
        <CopyButton text={text} label={t('copy.named', { label: title })} />
      </div>
      <pre translate="no">
        <code>{text}</code>
      </pre>
    </figure>
  );
}
