/** A snippet to copy: its title, the text as it will be pasted (wrapped on screen, never changed), a copy button. */
import { useId } from 'react';
import { CopyButton } from '../../components/CopyButton';

export function Snippet({ title, text }: { title: string; text: string }) {
  const captionId = useId();
  return (
    <figure className="snippet" aria-labelledby={captionId}>
      <div className="snippet-head">
        <figcaption id={captionId}>{title}</figcaption>
        <CopyButton text={text} label={`Copy ${title}`} />
      </div>
      <pre>
        <code>{text}</code>
      </pre>
    </figure>
  );
}
