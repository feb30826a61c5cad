/**
 * Test support for the admin routes: sign in through the login form, read a page with
 * its CSRF token, post a form as a same-origin browser does.
 * @module
 */
import assert from "node:assert/strict";
import { createUser } from "@/lib/admin/users.ts";
import { makeForm, makeWorkspace, type TestEnv } from "./helpers.ts";

/** The password of every test user. */
export const PASSWORD = "correct horse battery";
/** The content type of admin form posts. */
export const FORM_TYPE = { "content-type": "application/x-www-form-urlencoded" };

/** Signs in through the login form; returns the session cookie pair. */
export async function signIn(env: TestEnv, email: string, ip?: string): Promise<string> {
  const res = await env.request("/admin/login", {
    method: "POST",
    headers: FORM_TYPE,
    body: new URLSearchParams({ email, password: PASSWORD }).toString(),
    ip,
  });
  assert.equal(res.status, 303, await res.text());
  const cookie = res.headers.get("set-cookie") ?? "";
  return cookie.split(";")[0];
}

/** GETs an admin page as a signed-in user; returns the page and its CSRF token. */
export async function page(env: TestEnv, cookie: string, path: string) {
  const res = await env.request(path, { headers: { cookie } });
  const html = await res.text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
  return { res, html, csrf };
}

/** POSTs an admin form the way a same-origin browser does. */
export function post(
  env: TestEnv,
  cookie: string,
  path: string,
  fields: Record<string, string> | [string, string][],
  headers: Record<string, string> = { origin: "http://localhost", "sec-fetch-site": "same-origin" },
) {
  return env.request(path, {
    method: "POST",
    headers: { ...FORM_TYPE, cookie, ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** A Starter workspace with the contact form and an owner user. */
export async function setup(env: TestEnv) {
  const ws = await makeWorkspace(env.deps, "starter");
  const form = await makeForm(env.deps, ws);
  const owner = await createUser(env.deps, {
    email: "owner@example.com",
    password: PASSWORD,
    workspaceIds: [ws.id],
    role: "owner",
    owner: true,
  });
  return { ws, form, owner };
}
