/** A column's name as a field of the code: snake_case to camelCase, `_id` to `ID` (`session_id` → `sessionID`). */
type FieldName<C extends string> = C extends `${infer Head}_id`
  ? `${FieldName<Head>}ID`
  : C extends `${infer Head}_${infer Tail}`
    ? `${Head}${Capitalize<FieldName<Tail>>}`
    : C

/** A row's columns under their field names, with the same values. */
export type Fields<R> = { [C in keyof R & string as FieldName<C>]: R[C] }

const names = new Map<string, string>()

function fieldName(column: string): string {
  let name = names.get(column)
  if (name === undefined) {
    name = column.replace(/_id$/, "ID").replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())
    names.set(column, name)
  }
  return name
}

/**
 * A row as the record the code uses: each column under its field name (`project_id` → `projectID`),
 * in the row's column order, with its value unchanged. Every selected column becomes a field, so a
 * statement selects exactly the record's columns; a column that needs decoding (JSON text) is
 * overridden by the caller: `{ ...fromRow(row), data: JSON.parse(row.data) }`.
 */
export function fromRow<R extends object>(row: R): Fields<R> {
  const fields: Record<string, unknown> = {}
  for (const [column, value] of Object.entries(row)) fields[fieldName(column)] = value
  return fields as Fields<R>
}
