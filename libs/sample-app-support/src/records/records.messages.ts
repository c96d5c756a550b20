/** Text of the record errors, built in one place. Never includes a record's data. */
export const recordsMessages = {
  alreadyExists: (kind: string, id: string) =>
    `${capitalise(kind)} ${id} already exists; ids are generated per ${kind}, so this is a bug. Retry the request.`,
  corrupt: (kind: string, id: string, detail: string) =>
    `${capitalise(kind)} ${id} is unreadable in Redis (${detail}). Inspect or delete its keys; the app never writes this shape.`,
};

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
