// A LIKE pattern for "starts with" what a person typed, lower-cased (matched against lower()):
// the typed %, _ and backslash are meant literally.
export const likePrefix = (s: string): string => `${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
