import type { Address } from './api.js';
import { h } from './dom.js';

/** Name, ENS name, checksummed hash and badges: proxy, scam, public and metadata tags, and this key's private tags and watchlist names. */
export function addressCell(a: Address): HTMLElement {
  const badges = h('span', { className: 'badges' });
  if (a.proxy_type) {
    const impl = a.implementations.map((i) => i.name ?? i.address_hash).join(', ');
    badges.append(badge(`proxy · ${a.proxy_type}`, 'proxy', impl ? `Implementation: ${impl}` : 'Proxy contract'));
  } else if (a.is_contract) {
    badges.append(badge('contract', 'contract'));
  }
  if (a.is_scam) badges.append(badge('scam', 'scam', 'Flagged as scam'));
  for (const tag of a.public_tags) badges.append(badge(tag.display_name, 'tag', `Public tag: ${tag.label}`));
  const meta = [...(a.metadata?.tags ?? [])].sort((x, y) => x.ordinal - y.ordinal);
  for (const tag of meta) badges.append(badge(tag.name, 'meta', `${tag.tagType} tag`));
  for (const tag of a.private_tags) badges.append(badge(tag.display_name, 'private', 'Your private tag'));
  for (const w of a.watchlist_names) badges.append(badge(`★ ${w.display_name}`, 'watch', 'On your watchlist'));
  return h(
    'div',
    { className: 'addr' },
    a.name ? h('span', { className: 'addr-name' }, a.name) : null,
    a.ens_domain_name ? h('span', { className: 'addr-ens' }, a.ens_domain_name) : null,
    h('span', { className: 'hash mono', title: a.hash }, a.hash),
    badges.childElementCount > 0 ? badges : null,
  );
}

function badge(text: string, kind: string, title?: string): HTMLElement {
  return h('span', { className: `badge badge-${kind}`, title }, text);
}
