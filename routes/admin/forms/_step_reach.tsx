/**
 * The overview's drop-off table of a form with steps: how many visitors reached each step,
 * and that as a share of those who saw the first.
 * @module
 */
import type { StepReach } from "@/lib/forms/analytics.ts";

/** One row per step, in order; `titles` are the steps' titles in the default language. */
export function StepReachTable({ steps, titles }: { steps: StepReach[]; titles: string[] }) {
  const first = steps[0]?.reached ?? 0;
  return (
    <>
      <h3 id="step-reach">Steps reached</h3>
      <div class="table-wrap">
        <table aria-labelledby="step-reach">
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Title</th>
              <th scope="col" class="num">Visitors</th>
              <th scope="col" class="num">Of step 1</th>
            </tr>
          </thead>
          <tbody>
            {steps.map((s) => (
              <tr key={s.step}>
                <td>{s.step}</td>
                <td>{titles[s.step - 1] ?? ""}</td>
                <td class="num">{s.reached}</td>
                <td class="num">
                  {first > 0 ? `${Math.round(Math.min(1, s.reached / first) * 100)}%` : "—"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="help">
        A visitor counts once a day for each step the hosted page showed them; the drop between two
        steps is where people stopped.
      </p>
    </>
  );
}
