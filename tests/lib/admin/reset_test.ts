import assert from "node:assert/strict";
import type { Deps } from "@/lib/deps.ts";
import { requestPasswordReset, RESET_RESEND_MS } from "@/lib/admin/reset.ts";
import { createUser } from "@/lib/admin/users.ts";
import { testEnv } from "@/tests/helpers.ts";

const ATOMIC_STEPS = ["check", "set", "delete", "sum", "min", "max", "enqueue"];

/**
 * `kv` recording every operation a caller makes, by kind and key prefix: reads, lists,
 * writes and each atomic commit with its steps (an enqueue is named `enqueue`).
 */
function recordingKv(kv: Deno.Kv): { kv: Deno.Kv; ops: string[] } {
  const ops: string[] = [];
  const prefix = (key: unknown) => String((key as Deno.KvKey)[0]);
  const atomic = (op: Deno.AtomicOperation) => {
    const steps: string[] = [];
    const proxy: Deno.AtomicOperation = new Proxy(op, {
      get(target, prop) {
        const name = String(prop);
        if (ATOMIC_STEPS.includes(name)) {
          return (...args: unknown[]) => {
            if (name === "check") {
              for (const c of args as Deno.AtomicCheck[]) steps.push(`check ${prefix(c.key)}`);
            } else steps.push(name === "enqueue" ? "enqueue" : `${name} ${prefix(args[0])}`);
            (target[prop as keyof Deno.AtomicOperation] as (...a: unknown[]) => unknown)
              .apply(target, args);
            return proxy;
          };
        }
        if (name === "commit") {
          return () => {
            ops.push(`commit [${steps.join(", ")}]`);
            return target.commit();
          };
        }
        return Reflect.get(target, prop, target);
      },
    });
    return proxy;
  };
  const recorded: Deno.Kv = new Proxy(kv, {
    get(target, prop) {
      const name = String(prop);
      if (name === "atomic") return () => atomic(target.atomic());
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (["get", "getMany", "list", "set", "delete"].includes(name)) {
          const key = name === "list" ? (args[0] as { prefix: Deno.KvKey }).prefix : args[0];
          ops.push(`${name} ${name === "getMany" ? "many" : prefix(key)}`);
        }
        return value.apply(target, args);
      };
    },
  });
  return { kv: recorded, ops };
}

/** What `requestPasswordReset(email)` does to KV, recorded. */
async function resetOps(deps: Deps, email: string): Promise<string[]> {
  const rec = recordingKv(deps.kv);
  await requestPasswordReset({ ...deps, kv: rec.kv }, email);
  return rec.ops;
}

/** The operations with the mail's enqueue taken out of its commit. */
function withoutMail(ops: string[]): string[] {
  return ops.map((o) => o.replace(/, enqueue(?=[,\]])/, ""));
}

Deno.test("reset - an unknown email does the same KV work as an account, minus the mail", async () => {
  let now = Date.parse("2026-11-23T20:00:00Z");
  const env = await testEnv({}, { now: () => now });
  try {
    await createUser(env.deps, { email: "me@example.com", password: "long enough password" });
    const known = await resetOps(env.deps, "me@example.com");
    const unknown = await resetOps(env.deps, "nobody@example.com");
    // The same reads and one commit of the same writes; only the account's carries its mail.
    assert.deepEqual(withoutMail(known), withoutMail(unknown));
    assert.deepEqual(withoutMail(known), [
      "get users_by_email",
      "get users",
      "get password_resets_by_user",
      "commit [check password_resets_by_user, set password_resets, set password_resets_by_user]",
    ]);
    assert.equal(known.filter((o) => o.includes("enqueue")).length, 1);
    assert.equal(unknown.filter((o) => o.includes("enqueue")).length, 0);

    // Asking again within a minute: both stop at the same point, having written nothing.
    now += 1000;
    const knownAgain = await resetOps(env.deps, "me@example.com");
    const unknownAgain = await resetOps(env.deps, "nobody@example.com");
    assert.deepEqual(knownAgain, unknownAgain);
    assert.ok(knownAgain.every((o) => o.startsWith("get ")), knownAgain.join("; "));

    // After the resend window both replace their older link the same way.
    now += RESET_RESEND_MS;
    const knownLater = withoutMail(await resetOps(env.deps, "me@example.com"));
    assert.deepEqual(knownLater, withoutMail(await resetOps(env.deps, "nobody@example.com")));
    assert.match(knownLater.at(-1)!, /delete password_resets\]$/);
  } finally {
    env.close();
  }
});
