import { withSection } from '../../../config/settings-table.js';
import { ACTIONS, UNSUPPORTED } from './actions.js';

/** README's markers around the generated table. */
export const ACTIONS_START = '<!-- etherscan actions: generated from src/api/routes/etherscan/actions.ts by `npm run docs:settings` -->';
export const ACTIONS_END = '<!-- end of etherscan actions -->';

const code = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(', ');

/** Every action of that API we know: the ones we answer with their parameters, then the others by module. */
export function renderActionsTable(): string {
  const served = ACTIONS.map((a) => `| \`${a.module}\` | \`${a.action}\` | ${code(Object.keys(a.parameters))} | served: ${a.summary} |`);
  const refused = Object.entries(UNSUPPORTED).map(
    ([module, { reason, actions }]) => `| \`${module}\` | ${code(actions)} | — | unsupported ("Error! Missing Or invalid Action name"): ${reason} |`,
  );
  return ['| module | action | parameters | status |', '|---|---|---|---|', ...served, ...refused].join('\n');
}

export const withActionsTable = (readme: string): string => withSection(readme, ACTIONS_START, ACTIONS_END, renderActionsTable());
