/**
 * What a plan's limits mean on a self-hosted server, said wherever a limit is shown.
 * @module
 */

/** A short note: plans are limits an operator sets, not billing. */
export function PlanNote() {
  return (
    <p class="help">
      Plans set limits (keys, submissions, retention); this server bills nothing. An instance owner
      changes a workspace's plan on the Workspaces page; an operator can also run{" "}
      <code>deno task cli workspace set-plan --workspace ID --plan PLAN</code>.
    </p>
  );
}
