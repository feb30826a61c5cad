/**
 * Admin users: email, password hash, workspace membership, instance ownership.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { newId } from "@/lib/ids.ts";
import { keys } from "@/lib/kv/keys.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import { type AuditBy, auditMutation } from "@/lib/privacy/audit.ts";
import { hashPassword, passwordProblem, verifyPassword } from "./passwords.ts";
import type { Role, User } from "@/lib/schemas.ts";

/** The workspaces a new user joins, with the role they have in each (no role is assumed). */
type Joins = { workspaceIds?: never; role?: never } | { workspaceIds: string[]; role: Role };

/** Creates a user; the email must be unused. */
export async function createUser(
  deps: Pick<Deps, "kv" | "now">,
  input: { email: string; password: string; owner?: boolean } & Joins,
): Promise<User> {
  const email = normalizeEmail(input.email);
  if (!validEmail(email)) throw errors.badRequest("A valid email is required.");
  const weak = passwordProblem(input.password);
  if (weak) throw errors.badRequest(weak);
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
    roles: Object.fromEntries((input.workspaceIds ?? []).map((ws) => [ws, input.role!])),
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
  const user = await findUserByEmail(deps, email);
  return await passwordMatches(user, password) ? user : null;
}

/**
 * Whether `password` is `user`'s. The hash also runs for a null user (against a dummy), so
 * the time taken does not tell whether an account exists.
 */
export async function passwordMatches(user: User | null, password: string): Promise<boolean> {
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  return user !== null && ok;
}

/** An email as stored and looked up: trimmed, lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Whether a normalized email looks like one (one `@`, something either side, no spaces). */
export function validEmail(email: string): boolean {
  return email.length <= 320 && /^[^\s@]+@[^\s@]+$/.test(email);
}

/**
 * The user of an email, or null. Unknown emails read a user record too (one that never
 * exists), so the lookup does the same KV work whether or not the account exists.
 */
export async function findUserByEmail(
  deps: Pick<Deps, "kv">,
  email: string,
): Promise<User | null> {
  const id = (await withKvRetry(() => deps.kv.get<string>(keys.userByEmail(normalizeEmail(email)))))
    .value;
  const user = await getUser(deps, id ?? NO_USER);
  return id ? user : null;
}

/** A user id no user has (ids are `usr_` and a ULID). */
const NO_USER = "usr_none";

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

/**
 * Changes a signed-in user's password after checking the current one, audited
 * (`user.password_changed`) in each of the user's workspaces; sessions started before now
 * end (the caller starts a fresh one for the user's browser).
 */
export async function changePassword(
  deps: Pick<Deps, "kv" | "now">,
  userId: string,
  input: { current: string; next: string },
  by: AuditBy,
): Promise<User> {
  const user = await getUser(deps, userId);
  if (!user || !(await verifyPassword(input.current, user.password_hash))) {
    throw errors.badRequest("The current password is not right.");
  }
  const weak = passwordProblem(input.next);
  if (weak) throw errors.badRequest(weak);
  const hash = await hashPassword(input.next);
  const at = deps.now();
  const changed = await commitWithRetry(deps.kv, async (op) => {
    const entry = await deps.kv.get<User>(keys.user(userId));
    if (!entry.value) throw errors.notFound("User not found.");
    // Another change won meanwhile: the current password checked above is no longer it.
    if (entry.value.password_hash !== user.password_hash) {
      throw errors.badRequest("The password was changed meanwhile. Reload and try again.");
    }
    const next: User = { ...entry.value, password_hash: hash, password_changed_at: at };
    op.check(entry).set(entry.key, next);
    for (const workspaceId of next.workspace_ids) {
      auditMutation(op, at, {
        workspaceId,
        action: "user.password_changed",
        ...by,
        details: { user_id: next.id, email: next.email },
      });
    }
    return next;
  });
  return changed!;
}

/** Whether a session started at `createdAt` predates the user's last password change. */
export function sessionOutdated(user: User, createdAt: number): boolean {
  return user.password_changed_at !== undefined && createdAt < user.password_changed_at;
}
