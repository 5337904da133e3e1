import './style.css';
import { ApiError, getJson, type Health } from './api.js';
import { BlocksView } from './blocks.js';
import { chainName } from './chains.js';
import type { ViewContext } from './context.js';
import { byId, h } from './dom.js';
import { HASH_RE } from './format.js';
import { HoldersView } from './holders.js';

type Mode = 'holders' | 'blocks';

const KEY_STORAGE = 'explorer.apiKey';
const CHAIN_STORAGE = 'explorer.chain';

const keyForm = byId<HTMLFormElement>('key-form');
const keyInput = byId<HTMLInputElement>('api-key');
const keyState = byId('key-state');
const searchForm = byId<HTMLFormElement>('search');
const chainSelect = byId<HTMLSelectElement>('chain');
const hashInput = byId<HTMLInputElement>('hash');
const message = byId('message');
const sections: Record<Mode, HTMLElement> = { holders: byId('holders-view'), blocks: byId('blocks-view') };

// Storage can be unavailable (private modes, blocked cookies): the page then works for the visit.
const store = {
  get(name: string): string | null {
    try {
      return localStorage.getItem(name);
    } catch {
      return null;
    }
  },
  set(name: string, value: string | null): void {
    try {
      if (value === null) localStorage.removeItem(name);
      else localStorage.setItem(name, value);
    } catch {
      /* kept in memory only */
    }
  },
};

let apiKey: string | null = store.get(KEY_STORAGE);

function say(text: string, kind: 'info' | 'error' = 'info'): void {
  message.textContent = text;
  message.className = kind;
}

const ctx: ViewContext = {
  key: () => apiKey,
  info: (text) => say(text),
  fail(err) {
    if (!(err instanceof ApiError)) {
      say(err instanceof Error ? err.message : String(err), 'error');
      return;
    }
    if (err.status === 401) {
      say('The API key was not accepted. Enter a valid key above.', 'error');
      keyInput.focus();
    } else if (err.status === 429) {
      say(`Too many requests${err.retryAfter ? `: try again in ${err.retryAfter} s` : ''}.`, 'error');
    } else if (err.status === 403) {
      say('This address is restricted on this server.', 'error');
    } else {
      say(err.message, 'error');
    }
  },
};

const views = { holders: new HoldersView(ctx), blocks: new BlocksView(ctx) };

function showKeyState(): void {
  keyInput.value = apiKey ?? '';
  keyState.textContent = apiKey ? 'saved in this browser' : 'not set';
}

keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  apiKey = keyInput.value.trim() || null;
  store.set(KEY_STORAGE, apiKey);
  showKeyState();
  if (apiKey && parseRoute()) void route();
});
byId('key-forget').addEventListener('click', () => {
  apiKey = null;
  store.set(KEY_STORAGE, null);
  showKeyState();
});

function mode(): Mode {
  const checked = searchForm.querySelector<HTMLInputElement>('input[name="mode"]:checked');
  return checked?.value === 'blocks' ? 'blocks' : 'holders';
}

function setMode(m: Mode): void {
  const radio = searchForm.querySelector<HTMLInputElement>(`input[name="mode"][value="${m}"]`);
  if (radio) radio.checked = true;
  hashInput.placeholder = m === 'holders' ? 'Token address 0x…' : 'Miner / validator address 0x…';
}

searchForm.addEventListener('change', (event) => {
  if ((event.target as HTMLInputElement).name === 'mode') setMode(mode());
});

searchForm.addEventListener('submit', (event) => {
  event.preventDefault();
  // the chain list failed to load (the server was down at the page's load): ask again first
  if (chainSelect.options.length === 0) {
    void loadChains().then(() => {
      if (chainSelect.options.length > 0) searchForm.requestSubmit();
    });
    return;
  }
  const hash = hashInput.value.trim();
  if (!HASH_RE.test(hash)) {
    say('Enter an address: 0x followed by 40 hexadecimal characters.', 'error');
    hashInput.focus();
    return;
  }
  store.set(CHAIN_STORAGE, chainSelect.value);
  // The location carries the search, so Back, reload and shared links show it again.
  const next = `#/${mode()}/${chainSelect.value}/${hash}`;
  if (location.hash === next) void route();
  else location.hash = next;
});

// a holders search may name one ERC-1155 token id and a past block:
// #/holders/<chain>/<token>[/id/<token id>][/at/<block>]
function parseRoute(): { mode: Mode; chainId: number; hash: string; tokenId: string | null; block: string | null } | null {
  const m = /^#\/(holders|blocks)\/([1-9][0-9]*)\/(0x[0-9a-fA-F]{40})(?:\/id\/(0|[1-9][0-9]{0,77}))?(?:\/at\/(0|[1-9][0-9]{0,15}))?$/.exec(location.hash);
  if (!m || ((m[4] !== undefined || m[5] !== undefined) && m[1] !== 'holders')) return null;
  if (m[4] !== undefined && BigInt(m[4]) > MAX_UINT256) return null;
  return { mode: m[1] as Mode, chainId: Number(m[2]), hash: m[3]!, tokenId: m[4] ?? null, block: m[5] ?? null };
}

const MAX_UINT256 = 2n ** 256n - 1n;

/** Digits as typed, leading zeros allowed (00012 is 12): one spelling, '' for none; null if not digits. */
function typedNumber(input: string): string | null {
  const typed = byId<HTMLInputElement>(input).value.trim();
  if (typed === '') return '';
  return /^[0-9]+$/.test(typed) ? BigInt(typed).toString() : null;
}

// "Token ID" (ERC-1155) and "At block": the same search for one id, at a past block (empty: all
// ids, today's list)
byId<HTMLFormElement>('holders-at').addEventListener('submit', (event) => {
  event.preventDefault();
  const r = parseRoute();
  if (!r) return;
  const block = typedNumber('holders-block');
  if (block === null) {
    say('Enter a block number, or leave the field empty for the latest balances.', 'error');
    return;
  }
  if (BigInt(block === '' ? 0 : block) > BigInt(Number.MAX_SAFE_INTEGER)) {
    say(`Block ${block} is beyond any chain's height.`, 'error');
    return;
  }
  const tokenId = byId('holders-id-field').hidden ? '' : typedNumber('holders-token-id');
  if (tokenId === null || (tokenId !== '' && BigInt(tokenId) > MAX_UINT256)) {
    say('Enter a token ID (a whole number below 2^256), or leave the field empty for every ID.', 'error');
    return;
  }
  const next = `#/holders/${r.chainId}/${r.hash}${tokenId === '' ? '' : `/id/${tokenId}`}${block === '' ? '' : `/at/${block}`}`;
  if (location.hash === next) void route();
  else location.hash = next;
});

let current: AbortController | null = null;

async function route(): Promise<void> {
  const r = parseRoute();
  if (!r) return;
  current?.abort();
  views.holders.cancel();
  views.blocks.cancel();
  const controller = new AbortController();
  current = controller;
  setMode(r.mode);
  hashInput.value = r.hash;
  byId<HTMLInputElement>('holders-block').value = r.block ?? '';
  byId<HTMLInputElement>('holders-token-id').value = r.tokenId ?? '';
  const served = [...chainSelect.options].some((o) => o.value === String(r.chainId));
  if (served) chainSelect.value = String(r.chainId);
  sections.holders.hidden = r.mode !== 'holders';
  sections.blocks.hidden = r.mode !== 'blocks';
  if (!apiKey) {
    say('Enter your API key above first: it is kept in this browser only.', 'error');
    keyInput.focus();
    return;
  }
  if (!served && chainSelect.options.length > 0) {
    say(`This server serves no chain ${r.chainId}.`, 'error');
    return;
  }
  say('Loading…');
  const section = sections[r.mode];
  section.setAttribute('aria-busy', 'true');
  try {
    if (r.mode === 'holders') await views.holders.open(r.chainId, r.hash, controller.signal, { block: r.block, tokenId: r.tokenId });
    else await views.blocks.open(r.chainId, r.hash, controller.signal);
  } finally {
    if (current === controller) section.setAttribute('aria-busy', 'false');
  }
}

/**
 * The chain picker, from /health. Asked again every half minute (the indexed block it shows
 * moves), and before a search when the page's first ask failed; `quietly` keeps a failed
 * refresh from replacing what the page says.
 */
async function loadChains(quietly = false): Promise<void> {
  try {
    // a degraded server answers 503 with the same body: its chains are still worth listing
    const health = await getJson<Health>('health', null).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 503 && Array.isArray((err.body as Health | null)?.chains)) return err.body as Health;
      throw err;
    });
    const remembered = chainSelect.value || store.get(CHAIN_STORAGE);
    const first = chainSelect.options.length === 0;
    chainSelect.replaceChildren(
      ...health.chains.map((c) => {
        const indexed =
          (c.indexed_block === null ? 'not indexed yet' : `block ${c.indexed_block}${c.lag ? `, ${c.lag} behind` : ''}`) +
          (c.status === 'degraded' ? ' · indexing degraded' : '');
        return h('option', { value: c.chain_id }, `${chainName(c.chain_id)} (${c.chain_id}) · ${indexed}`);
      }),
    );
    if (remembered && health.chains.some((c) => String(c.chain_id) === remembered)) chainSelect.value = remembered;
    if (health.chains.length === 0) say('This server indexes no chain yet.', 'error');
    else if (first && !quietly) say('');
  } catch (err) {
    if (!quietly) ctx.fail(err);
  }
}
setInterval(() => void loadChains(true), 30_000);

window.addEventListener('hashchange', () => void route());
showKeyState();
setMode(mode());
await loadChains();
if (parseRoute()) void route();
