/**
 * One filter of a list page: a labelled select whose first choice is "any" (no filter), then the values.
 * The caller keeps the value, usually in the address's query.
 */
export function FilterSelect<V extends string>({
  id,
  label,
  value,
  anyValue = '',
  anyLabel,
  options,
  optionLabel = (option) => option,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  /** The value that means no filter; '' unless the page's default is a filter ("open"). */
  anyValue?: string;
  /** "Any status" */
  anyLabel: string;
  options: readonly V[];
  optionLabel?: (option: V) => string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="filter">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(e) => {
          onChange(e.target.value);
        }}
      >
        <option value={anyValue}>{anyLabel}</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {optionLabel(option)}
          </option>
        ))}
      </select>
    </div>
  );
}
