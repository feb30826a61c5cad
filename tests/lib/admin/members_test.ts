import assert from "node:assert/strict";
import {
  atLeast,
  listMembers,
  roleIn,
  setMemberRole,
  withMembership,
} from "@/lib/admin/members.ts";
import { createUser } from "@/lib/admin/users.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { User } from "@/lib/schemas.ts";
import { makeWorkspace, testEnv } from "@/tests/helpers.ts";

const base: User = {
  id: "usr_1",
  email: "a@example.com",
  password_hash: "x",
  workspace_ids: ["ws_a"],
  owner: false,
  created_at: "2026-01-01T00:00:00.000Z",
};

Deno.test("members - roles", async (t) => {
  await t.step("a member with no stored role has no role: nothing is granted by default", () => {
    assert.equal(roleIn(base, "ws_a"), null);
    assert.equal(roleIn({ ...base, roles: {} }, "ws_a"), null);
    assert.equal(roleIn({ ...base, roles: { ws_b: "owner" } }, "ws_a"), null);
    assert.ok(!atLeast(roleIn(base, "ws_a"), "viewer"));
    assert.equal(roleIn(base, "ws_b"), null);
  });

  await t.step("a stored value that is not a role grants nothing", () => {
    const odd = { ...base, roles: { ws_a: "superuser" } } as unknown as User;
    assert.equal(roleIn(odd, "ws_a"), null);
  });

  await t.step("an instance owner is an owner everywhere", () => {
    assert.equal(roleIn({ ...base, owner: true, workspace_ids: [] }, "ws_b"), "owner");
  });

  await t.step("a stored role wins; joining adds the workspace once", () => {
    const viewer = withMembership(base, "ws_a", "viewer");
    assert.deepEqual(viewer.workspace_ids, ["ws_a"]);
    assert.equal(roleIn(viewer, "ws_a"), "viewer");
    const both = withMembership(viewer, "ws_b", "admin");
    assert.deepEqual(both.workspace_ids, ["ws_a", "ws_b"]);
    assert.equal(roleIn(both, "ws_b"), "admin");
  });

  await t.step("roles are ordered viewer < admin < owner; none grants nothing", () => {
    assert.ok(atLeast("owner", "admin") && atLeast("admin", "admin"));
    assert.ok(!atLeast("viewer", "admin") && !atLeast("admin", "owner"));
    assert.ok(!atLeast(null, "viewer"));
  });
});

Deno.test("members - a member with no stored role is listed with none, and can be given one", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    const user = await createUser(env.deps, {
      email: "bare@example.com",
      password: "correct horse battery",
      workspaceIds: [ws.id],
      role: "viewer",
    });
    await env.deps.kv.set(keys.user(user.id), { ...user, roles: {} });
    const [listed] = await listMembers(env.deps, ws.id);
    assert.equal(listed.role, null);
    const before = await setMemberRole(env.deps, ws.id, user.id, "admin", { actor: "test" });
    assert.equal(before, null);
    const stored = await env.deps.kv.get<User>(keys.user(user.id));
    assert.equal(roleIn(stored.value!, ws.id), "admin");
  } finally {
    env.close();
  }
});
