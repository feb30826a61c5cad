/**
 * Admin users: email, password hash, workspace membership, instance ownership.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";
import type { User } from "@/lib/schemas.ts";

/** Creates a user; the email must be unused. */
export async function createUser(
  deps: Pick<Deps, "kv" | "now">,
  input: { email: string; password: string; workspaceIds?: string[]; owner?: boolean },
): Promise<User> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw errors.badRequest("A valid email is required.");
  if (input.password.length < 8) {
    throw errors.badRequest("The password needs at least 8 characters.");
  }
  for (const ws of input.workspaceIds ?? []) {
    if (!(await withKvRetry(() => deps.kv.get(keys.workspace(ws)))).value) {
      throw errors.notFound("Workspace not found.");
    }
  }
  const user: User = {
    id: newId("usr"),
    email,
    password_hash: await hashPassword(input.password),
    workspace_ids: input.workspaceIds ?? [],
    owner: input.owner ?? false,
    created_at: new Date(deps.now()).toISOString(),
  };
  const res = await withKvRetry(() =>
    deps.kv.atomic()
      .check({ key: keys.userByEmail(email), versionstamp: null })
      .set(keys.user(user.id), user)
      .set(keys.userByEmail(email), user.id)
      .commit()
  );
  if (!res.ok) throw new AppError(409, "conflict", "A user with this email already exists.");
  return user;
}

/** The user of an email and password, or null (same answer for unknown email and bad password). */
export async function verifyLogin(
  deps: Pick<Deps, "kv">,
  email: string,
  password: string,
): Promise<User | null> {
  const id =
    (await withKvRetry(() => deps.kv.get<string>(keys.userByEmail(email.trim().toLowerCase()))))
      .value;
  const user = id ? (await withKvRetry(() => deps.kv.get<User>(keys.user(id)))).value : null;
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  return user && ok ? user : null;
}

/** Spends the same hashing time for unknown emails, so timing does not reveal accounts. */
const DUMMY_HASH =
  "pbkdf2-sha256$600000$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

/** A user by id, or null. */
export async function getUser(deps: Pick<Deps, "kv">, id: string): Promise<User | null> {
  return (await withKvRetry(() => deps.kv.get<User>(keys.user(id)))).value;
}

/** Public view of a user (never the hash). */
export function userView(u: User): Omit<User, "password_hash"> {
  const { password_hash: _h, ...rest } = u;
  return rest;
}
