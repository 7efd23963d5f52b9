// `a2a-gateway relays add|list|show|remove|agents|agent-trust|agent-keys`: relay connections on the configured store.
import { firstIssue } from '../protocol/input-issue.js';
import { WorkspaceFilter } from '../protocol/records.js';
import { openCliStore } from './store.js';
import { tellInstances } from './tell-instances.js';
import { systemClock } from '../runtime/clock.js';
import {
  type RelayAdminDeps,
  type RelayView,
  RelayAdminError,
  addRelay,
  listRelays,
  parseAddRelayInput,
  parseAgentSetting,
  parseRelayRef,
  removeRelay,
  setRelayAgent,
  showRelay,
} from '../runtime/relay-admin.js';
import { COMMON_OPTIONS, configFrom, parseFlags } from './common-flags.js';
import { err, out, outJson } from './output.js';

const OPTIONS = {
  ...COMMON_OPTIONS,
  workspace: { type: 'string' },
  name: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

const SUBS = ['add', 'list', 'show', 'remove', 'agents', 'agent-trust', 'agent-keys'];
const inputError = (message: string, field?: string) => new RelayAdminError('ERR_RELAY_INPUT', message, field);
const FLAGS_OF: Record<string, string> = { workspace: '--workspace', name: '--name', key: '--key' };

function withFlag(e: unknown): unknown {
  if (!(e instanceof RelayAdminError) || e.field === undefined || e.code !== 'ERR_RELAY_INPUT') return e;
  const flag = FLAGS_OF[e.field];
  return flag && !e.message.includes(flag) ? new RelayAdminError(e.code, `${e.message} (${flag})`, e.field) : e;
}

const row = (k: string, v: string) => `  ${k.padEnd(10)} ${v}`;
const agentLine = (a: RelayView['agents'][number]) =>
  `  ${a.name}  trust ${a.trust}  keys ${a.keys.length === 0 ? 'every key of the workspace' : a.keys.join(', ')}${a.announced ? '' : '  (not announced yet)'}`;

/** How many of a relay's announced agents a warning names (a relay announces up to 100). */
const NAMED_IN_WARNING = 5;

/**
 * A setting for an agent the relay has not announced is kept (it applies from the agent's first announcement on: so an
 * operator can lower its trust or close it to most keys before it is ever reachable), but a mistyped name would be
 * kept as quietly: the warning names the agents the relay did announce.
 */
function notAnnouncedWarning(r: RelayView, agent: string): string {
  const announced = r.agents.filter((a) => a.announced).map((a) => a.name);
  const named =
    announced.length === 0
      ? 'it has announced no agents yet'
      : `it announced ${announced.slice(0, NAMED_IN_WARNING).join(', ')}${announced.length > NAMED_IN_WARNING ? ` and ${announced.length - NAMED_IN_WARNING} more` : ''}`;
  return `a2a-gateway: warning: relay ${r.name} has not announced an agent named ${agent} (${named}); the setting is kept and applies once it does (check the name)`;
}

function describe(r: RelayView): string[] {
  return [
    `relay ${r.name} (${r.id}) in workspace ${r.workspace}`,
    row('key', r.key_id),
    row('agents', r.agents.length === 0 ? 'none announced yet' : String(r.agents.length)),
    ...r.agents.map(agentLine),
    row('created', r.created_at),
    row('updated', r.updated_at),
  ];
}

export async function relaysCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub.startsWith('-')) throw inputError(`relays: a subcommand is needed: ${SUBS.join(', ')}`);
  if (!SUBS.includes(sub)) throw inputError(`relays: unknown subcommand '${sub}' (${SUBS.join(', ')})`);
  const { values: v, positionals } = parseFlags({ args: rest, allowPositionals: true, strict: true, options: OPTIONS });
  if (sub !== 'add' && v.key !== undefined) throw inputError(`relays ${sub}: --key is a flag of add only`);
  const refOf = (n: number) => {
    const name = v.name ?? positionals[0];
    if (positionals.length > n) throw inputError(`relays ${sub}: unexpected '${positionals[n]}'`);
    try {
      return parseRelayRef({ workspace: v.workspace, name });
    } catch (e) {
      throw withFlag(e);
    }
  };

  let run: (deps: RelayAdminDeps) => Promise<void>;
  switch (sub) {
    case 'add': {
      if (positionals.length > 0) throw inputError(`relays add: unexpected '${positionals[0]}' (give the name with --name)`);
      const input = { workspace: v.workspace, name: v.name, key: v.key };
      try {
        parseAddRelayInput(input);
      } catch (e) {
        throw withFlag(e);
      }
      run = async (deps) => {
        const r = await addRelay(deps, input);
        if (v.json) outJson(r);
        else out(`relay ${r.name} added to workspace ${r.workspace}: opened by key ${r.key_id}`);
      };
      break;
    }
    case 'list': {
      if (positionals.length > 0) throw inputError(`relays list: unexpected '${positionals[0]}' (list takes --workspace W)`);
      const filter = v.workspace === undefined ? undefined : WorkspaceFilter.safeParse(v.workspace);
      if (filter && !filter.success) throw inputError(`workspace: ${firstIssue(filter.error).message} (--workspace)`, 'workspace');
      const workspace = filter?.data;
      run = async (deps) => {
        const all = await listRelays(deps, { workspace });
        if (v.json) outJson(all);
        else if (all.length === 0) out(workspace ? `no relays in workspace ${workspace}` : 'no relays');
        else for (const r of all) out(`${r.workspace}  ${r.name}  key ${r.key_id}  agents ${r.agents.length}`);
      };
      break;
    }
    case 'show': {
      const ref = refOf(1);
      run = async (deps) => {
        const r = await showRelay(deps, ref);
        if (v.json) outJson(r);
        else out(...describe(r));
      };
      break;
    }
    case 'agents': {
      const ref = refOf(1);
      run = async (deps) => {
        const r = await showRelay(deps, ref);
        if (v.json) outJson(r.agents);
        else if (r.agents.length === 0) out(`relay ${r.name} has announced no agents yet`);
        else for (const a of r.agents) out(agentLine(a).trimStart());
      };
      break;
    }
    case 'agent-trust':
    case 'agent-keys': {
      // relays agent-trust NAME AGENT LEVEL | relays agent-keys NAME AGENT k1,k2 ('' or 'all': every key)
      if (positionals.length !== 3) throw inputError(`relays ${sub}: give NAME AGENT ${sub === 'agent-trust' ? 'LEVEL' : 'KEY_IDS'}`);
      const [name, agent, value] = positionals as [string, string, string];
      const keys =
        value === 'all'
          ? []
          : value
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean);
      const input = { workspace: v.workspace, name, agent, ...(sub === 'agent-trust' ? { trust: value } : { keys }) };
      try {
        parseAgentSetting(input);
      } catch (e) {
        throw withFlag(e);
      }
      run = async (deps) => {
        const a = await setRelayAgent(deps, input);
        if (v.json) outJson(a);
        else out(`relay ${name}: ${agentLine(a).trimStart()}`);
        if (!a.announced) err(notAnnouncedWarning(await showRelay(deps, { workspace: v.workspace, name }), agent));
      };
      break;
    }
    default: {
      const ref = refOf(1);
      run = async (deps) => {
        const r = await removeRelay(deps, ref);
        if (v.json) outJson(r);
        else out(`relay ${r.name} removed from workspace ${r.workspace}${'damaged' in r ? ' (its record was damaged)' : ''}`);
      };
    }
  }

  const config = await configFrom(v);
  const store = await openCliStore(config);
  try {
    await run({ relays: store.relays, keys: store.keys, clock: systemClock });
    // a change (not a listing) is told to the running gateways at once
    if (sub === 'add' || sub === 'remove' || sub === 'agent-trust' || sub === 'agent-keys') await tellInstances(config, { t: 'relays' });
    return 0;
  } catch (e) {
    throw withFlag(e);
  } finally {
    await store.close();
  }
}
