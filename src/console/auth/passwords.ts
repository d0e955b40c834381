// Password hashing for analyst accounts: argon2id (@node-rs/argon2, its defaults: 19 MiB, 2
// passes, the OWASP minimum). A dependency (deps.passwords), so the sign-in door's order can be
// tested: nothing is hashed for a request the door refuses first.
import { hash, verify } from '@node-rs/argon2';

export interface Passwords {
  hash(password: string): Promise<string>;
  verify(passwordHash: string, password: string): Promise<boolean>;
}

export const argon2Passwords: Passwords = {
  hash: (password) => hash(password),
  verify: (passwordHash, password) => verify(passwordHash, password).catch(() => false),
};
