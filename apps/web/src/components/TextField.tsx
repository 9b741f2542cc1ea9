/**
 * A labelled text input (or, `multiline`, a textarea) whose value the caller keeps: the FormField with the
 * control most forms need, so a form lists its fields instead of wiring each one.
 */
import type { InputHTMLAttributes, ReactNode } from 'react';
import { FormField } from './FormField';

type ControlAttributes = Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'id' | 'value' | 'onChange' | 'aria-invalid' | 'aria-describedby'
>;

export function TextField({
  id,
  label,
  hint,
  problem,
  value,
  onChange,
  multiline = false,
  rows,
  ...control
}: ControlAttributes & {
  id?: string;
  label: string;
  hint?: ReactNode;
  problem: string | undefined;
  value: string;
  onChange: (value: string) => void;
  /** A textarea of `rows` lines instead of one line. */
  multiline?: boolean;
  rows?: number;
}) {
  return (
    <FormField {...(id === undefined ? {} : { id })} label={label} hint={hint} problem={problem}>
      {(props) =>
        multiline ? (
          <textarea
            {...props}
            rows={rows}
            className={control.className}
            placeholder={control.placeholder}
            spellCheck={control.spellCheck}
            translate={control.translate}
            autoFocus={control.autoFocus}
            required={control.required}
            value={value}
            onChange={(e) => {
              onChange(e.target.value);
            }}
          />
        ) : (
          <input
            {...props}
            {...control}
            value={value}
            onChange={(e) => {
              onChange(e.target.value);
            }}
          />
        )
      }
    </FormField>
  );
}
