/**
 * Formwell's own lint rules, loaded by `deno lint` (deno.json `lint.plugins`).
 *
 * `formwell/kv-retry`: every KV conflict retry goes through `commitWithRetry`
 * (lib/kv/kv.ts), which bounds it and backs off. A hand-written retry is a loop that
 * commits (an operation's `.commit()`, or a `commit...()` function) and either counts
 * attempts (`attempt`, `tries`, `retries` in its header), runs forever (`for (;;)`,
 * `while (true)`) or leaves on a commit's `ok`; or a loop that counts attempts and backs
 * off (`delay()`). Loops over data (`for...of`, `for await`, chunks stepped with `+=`) are
 * not retries. Test and bench code is out of its scope.
 *
 * `formwell/role-default`: no role is assumed. A workspace role (`viewer`, `admin`,
 * `owner`) is never the fallback of something role-like: `role ?? "owner"`,
 * `x.role || "viewer"`, or a parameter or property `role = "admin"` (a role-like name:
 * one containing "role"). A missing role grants nothing (lib/admin/members.ts `roleIn`).
 * @module
 */

/** Files the rule leaves alone: tests and tools may loop as they please. */
const OUT_OF_SCOPE = /(^|\/)(tests|bench)\//;
const COUNTS = /\b(attempts?|tries|retries|retry)\b/;
const COMMIT_CALL = /^#?commit(\w*)$/;

/** A loop the rule may flag, with what its body was seen to do. */
interface Loop {
  node: Deno.lint.Node;
  /** Where its body is (calls in the header are not the body's). */
  body: Deno.lint.Range;
  isDo: boolean;
  counts: boolean;
  commits: boolean;
  leavesOnOk: boolean;
  backsOff: boolean;
}

function within(inner: Deno.lint.Range, outer: Deno.lint.Range): boolean {
  return inner[0] >= outer[0] && inner[1] <= outer[1];
}

/** The name a call's callee ends in: `f` of `f()`, `commit` of `op.commit()`, `#x` of `this.#x()`. */
function calleeName(callee: Deno.lint.Node): string | null {
  if (callee.type === "Identifier") return callee.name;
  if (callee.type === "MemberExpression") {
    const p = callee.property;
    if (p.type === "Identifier") return p.name;
    if (p.type === "PrivateIdentifier") return `#${p.name}`;
  }
  return null;
}

/** Whether a call commits: `.commit()`, or a function named `commitX` (or `#commitX`). */
function isCommit(name: string): boolean {
  const m = COMMIT_CALL.exec(name);
  return m !== null && (m[1] === "" ? !name.startsWith("#") : /^[A-Z]/.test(m[1]));
}

const kvRetry: Deno.lint.Rule = {
  create(ctx) {
    if (OUT_OF_SCOPE.test(ctx.filename.replaceAll("\\", "/"))) return {};
    const loops: Loop[] = [];
    const text = (n: Deno.lint.Node | null | undefined) => n ? ctx.sourceCode.getText(n) : "";
    const enter = (node: Deno.lint.Node, body: Deno.lint.Node, isDo: boolean, counts: boolean) => {
      loops.push({
        node,
        body: body.range,
        isDo,
        counts,
        commits: false,
        leavesOnOk: false,
        backsOff: false,
      });
    };
    const inBodies = (range: Deno.lint.Range) => loops.filter((l) => within(range, l.body));
    const exit = () => {
      const l = loops.pop()!;
      if ((l.commits && (l.counts || l.leavesOnOk || l.isDo)) || (l.counts && l.backsOff)) {
        ctx.report({
          node: l.node,
          message: "A hand-written KV conflict retry.",
          hint: "Retry conflicts through commitWithRetry (lib/kv/kv.ts): bounded, with backoff.",
        });
      }
    };
    return {
      ForStatement(node) {
        const header = [text(node.init), text(node.test), text(node.update)].join(";");
        // Chunks stepped with `+=` are a loop over data (unless it never ends: `;;`).
        if (
          node.update?.type === "AssignmentExpression" && node.update.operator === "+=" && node.test
        ) {
          loops.push({
            node,
            body: [0, 0],
            isDo: false,
            counts: false,
            commits: false,
            leavesOnOk: false,
            backsOff: false,
          });
          return;
        }
        enter(node, node.body, false, node.test === null || COUNTS.test(header));
      },
      "ForStatement:exit": exit,
      WhileStatement(node) {
        const forever = node.test.type === "Literal" && node.test.value === true;
        enter(node, node.body, false, forever || COUNTS.test(text(node.test)));
      },
      "WhileStatement:exit": exit,
      DoWhileStatement(node) {
        enter(node, node.body, true, COUNTS.test(text(node.test)));
      },
      "DoWhileStatement:exit": exit,
      CallExpression(node) {
        const name = calleeName(node.callee);
        if (!name) return;
        for (const l of inBodies(node.range)) {
          if (isCommit(name)) l.commits = true;
          if (name === "delay") l.backsOff = true;
        }
      },
      IfStatement(node) {
        if (!/\.ok\b/.test(text(node.test))) return;
        if (!/\b(return|break)\b/.test(text(node.consequent))) return;
        for (const l of inBodies(node.range)) l.leavesOnOk = true;
      },
    };
  },
};

/** The workspace roles, as string literals in source. */
const ROLE_LITERAL = new Set(["viewer", "admin", "owner"]);
const ROLE_LIKE = /role/i;

const roleDefault: Deno.lint.Rule = {
  create(ctx) {
    if (OUT_OF_SCOPE.test(ctx.filename.replaceAll("\\", "/"))) return {};
    const isRole = (n: Deno.lint.Node) =>
      n.type === "Literal" && typeof n.value === "string" && ROLE_LITERAL.has(n.value);
    const report = (node: Deno.lint.Node) =>
      ctx.report({
        node,
        message: "A role assumed where none is given.",
        hint: "Name the role where it is decided; a missing role grants nothing.",
      });
    return {
      LogicalExpression(node) {
        if (node.operator === "&&" || !isRole(node.right)) return;
        if (ROLE_LIKE.test(ctx.sourceCode.getText(node.left))) report(node);
      },
      AssignmentPattern(node) {
        if (isRole(node.right) && ROLE_LIKE.test(ctx.sourceCode.getText(node.left))) report(node);
      },
    };
  },
};

/** The plugin: its rules by name (reported as `formwell/<name>`). */
const plugin: Deno.lint.Plugin = {
  name: "formwell",
  rules: { "kv-retry": kvRetry, "role-default": roleDefault },
};
export default plugin;
