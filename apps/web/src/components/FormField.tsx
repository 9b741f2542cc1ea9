/**
 * A labelled form control with an optional hint and the hub's problem with it: the control gets the ids that
 * tie it to both (aria-describedby) and aria-invalid when there is a problem.
 */
import { useId, type ReactNode } from 'react';

export interface ControlProps {
  id: string;
  'aria-invalid': boolean;
  'aria-describedby'?: string;
}

export function FormField({
  label,
  hint,
  problem,
  children,
}: {
  label: string;
  hint?: ReactNode;
  problem: string | undefined;
  children: (props: ControlProps) => ReactNode;
}) {
  const id = useId();
  const described = [hint ? `${id}-hint` : null, problem !== undefined ? `${id}-problem` : null]
    .filter((x) => x !== null)
    .join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        'aria-invalid': problem !== undefined,
        ...(described ? { 'aria-describedby': described } : {}),
      })}
      {hint && (
        <span className="field-hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {problem !== undefined && (
        <span className="field-error" id={`${id}-problem`}>
          {problem}
        </span>
      )}
    </div>
  );
}
