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
  id: fixedId,
  label,
  hint,
  problem,
  children,
}: {
  /** The control's id when something outside the field names it; `<id>-problem` is then the problem's. */
  id?: string;
  label: string;
  hint?: ReactNode;
  problem: string | undefined;
  children: (props: ControlProps) => ReactNode;
}) {
  const generatedId = useId();
  const id = fixedId ?? generatedId;
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
