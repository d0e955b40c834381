// App-generated ids: a type prefix and a UUIDv7 in hex, so ids sort by creation time.
import { uuidv7 } from 'uuidv7';

export function newId(prefix: string): string {
  return `${prefix}_${uuidv7().replaceAll('-', '')}`;
}
