// Push notifications, assembled: the registration check, the supervisor hook and the delivery worker over one store.
import type { Task } from '../../protocol/model.js';
import type { Clock, Timers } from '../clock.js';
import type { Log } from '../log.js';
import type { LeaseHolder, Store } from '../store/types.js';
import type { AgentPermits } from './key-view.js';
import { createPushNotifier, type PreparedJobs } from './notifier.js';
import { pushConfigSeal, type PushConfigSeal } from './config-secrets.js';
import { WebhookSecrets } from './secrets.js';
import { checkUrl, parseAllowlist, systemResolve, type Resolve, type UrlVerdict } from '../net/guard.js';
import { PUSH_URL } from './deliver.js';
import { PushWorker, type AttemptReport, type DeliveryPolicy } from './worker.js';

export interface PushSettings extends DeliveryPolicy {
  /** CIDRs or exact addresses admitted although internal (config `push.allowlist`) */
  allowlist: readonly string[];
  /** attempts in flight at once for one workspace (config `push.maxInFlightPerWorkspace`; absent: the worker's default) */
  maxInFlightPerWorkspace?: number;
}

export interface PushRuntime {
  /** the registration check (set, or inline on send): refuses a URL before anything is stored */
  checkUrl(url: string): Promise<UrlVerdict>;
  /** the supervisor's hook: jobs for every live config of the task, stored in the change's own atomic write */
  prepare(records: readonly Task[]): Promise<PreparedJobs | undefined>;
  readonly secrets: WebhookSecrets;
  /** seals a config's credentials before it is stored */
  readonly configs: Pick<PushConfigSeal, 'seal'>;
  start(): void;
  /** resolves when queued changes are stored and no attempt is under way (tests wait on this between clock moves) */
  idle(): Promise<void>;
  /** stops delivering; pending jobs stay in the store for the next start. Idempotent. */
  stop(): Promise<void>;
}

export function createPushRuntime(o: {
  store: Store;
  /** the server secret: webhook signing secrets are sealed under it */
  secret: Buffer;
  clock: Clock;
  timers: Timers;
  log: Log;
  settings: PushSettings;
  resolve?: Resolve;
  /** the agents' own checks of a key (a relay agent's permitted keys): a config's key no longer let in gets nothing */
  permits?: AgentPermits;
  /** this instance and run (claims carry it; an earlier run's leases are freed on start) */
  holder?: LeaseHolder;
  onAttempt?: (a: AttemptReport) => void;
}): PushRuntime {
  const allowlist = parseAllowlist(o.settings.allowlist, 'push.allowlist');
  const resolve = o.resolve ?? systemResolve;
  const secrets = new WebhookSecrets({ meta: o.store.meta, secret: o.secret });
  const seal = pushConfigSeal({ secret: o.secret });
  const worker = new PushWorker({
    jobs: o.store.pushJobs,
    configs: o.store.pushConfigs,
    keys: o.store.keys,
    permits: o.permits,
    secrets,
    seal,
    clock: o.clock,
    timers: o.timers,
    log: o.log,
    allowlist,
    resolve,
    policy: o.settings,
    ...(o.settings.maxInFlightPerWorkspace !== undefined && { perWorkspace: o.settings.maxInFlightPerWorkspace }),
    ...(o.holder && { holder: o.holder }),
    onAttempt: o.onAttempt,
  });
  const notifier = createPushNotifier({
    configs: o.store.pushConfigs,
    keys: o.store.keys,
    clock: o.clock,
    permits: o.permits,
    onEnqueued: () => worker.kick(),
  });
  let stopping: Promise<void> | undefined;
  return {
    checkUrl: (url) => checkUrl(url, { allowlist, resolve, what: PUSH_URL }),
    prepare: (records) => notifier.prepare(records),
    secrets,
    configs: seal,
    start: () => worker.start(),
    async idle() {
      await worker.idle();
    },
    stop() {
      stopping ??= worker.stop();
      return stopping;
    },
  };
}
