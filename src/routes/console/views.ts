import { showActivation, showInstallCode, showServer } from '../../domain/admin-lists/object-shows.js';
import type { Context, Hono } from 'hono';
import type { ConsoleAssets, ConsoleViewer } from '../../console/console-frame.js';
import { activationDetailView, codeDetailView, serverDetailView, type DoneNotice } from '../../console/detail-views.js';
import {
  ACTIVATION_STATUSES,
  activationsListView,
  CODE_STATUSES,
  codesListView,
  eventsListView,
  SERVER_HEALTHS,
  serversListView,
  type ListFilters,
} from '../../console/list-views.js';
import { overviewView } from '../../console/overview-view.js';
import { webhooksView } from '../../console/webhooks-view.js';
import type { RouteDeps } from '../../deps.js';
import { activationsPerHour } from '../../domain/admin-lists/activation-hours.js';
import { stateCounts } from '../../domain/admin-lists/state-counts.js';
import { waitingWork } from '../../domain/admin-lists/waiting-work.js';
import { listActivations } from '../../domain/admin-lists/activation-list.js';
import { listEvents } from '../../domain/admin-lists/event-list.js';
import { listInstallCodes } from '../../domain/admin-lists/install-code-list.js';
import { codeActivationsSection, decidedNote, pendingPrechecksSection } from '../../console/fleet-code-views.js';
import { DEFAULT_PAGE_SIZE } from '../../domain/admin-lists/pagination.js';
import { pendingPrechecksOf } from '../../domain/install-codes/operator-prechecks.js';
import { listServers } from '../../domain/admin-lists/server-list.js';
import { EVENT_TYPES, type EventType } from '../../domain/events/event-trail.js';
import { listDeliveries } from '../../domain/webhooks/deliveries.js';
import { listWebhookEndpoints } from '../../domain/webhooks/endpoints.js';
import type { AppEnv } from '../../http/app-env.js';
import { describeIssues } from '../../http/router.js';
import { search, searchFilters } from '../../schemas/admin/list.js';
import { z } from '@hono/zod-openapi';
import type { SearchFilter } from '../../domain/admin-lists/list-query.js';
import { SEARCH_SHOWN, searchView } from '../../console/search-view.js';
import { answerView, ConsoleRefusal, viewerOf } from './console-answer.js';
import { html } from '../../html.js';

/** The overview's chart: whole UTC days. */
const CHART_DAYS = 7;
/** The search fields of the lists of codes, activations and servers. */
const SEARCH_FIELDS = [
  { name: 'q', label: 'Part of a host name or hint, or the start of an id' },
  { name: 'ip', label: 'IP address or network' },
];
/** The overview's latest events, and each endpoint's recent deliveries on the webhooks view. */
const LATEST = 10;

/** A filter given as one of `allowed`, or none; anything else is a 400 page. */
function oneOf<T extends string>(c: Context<AppEnv>, name: string, allowed: readonly T[]): T | undefined {
  const value = c.req.query(name);
  if (value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new ConsoleRefusal(400, 'Not a filter', `${name} must be one of: ${allowed.join(', ')}.`);
  return value as T;
}

/** What the console's search fields take: the admin lists' own `q` and `ip`, validated as the API validates them. */
const { q: searchText, ip: searchIp } = searchFilters(
  'Part of a hostname or hint, or the start of an id',
  'the machine',
);
const SearchQuerySchema = z.object({ q: searchText, ip: searchIp });

/** The search of a list view (`q`, `ip`), as the domain's lists take it, and as the view's form shows it. */
function searchOf(c: Context<AppEnv>): { filter: SearchFilter; shown: ListFilters } {
  const given = { q: c.req.query('q') || undefined, ip: c.req.query('ip') || undefined };
  const parsed = SearchQuerySchema.safeParse(given);
  if (!parsed.success) throw new ConsoleRefusal(400, 'Not a search', describeIssues(parsed.error));
  return { filter: search(parsed.data), shown: given };
}

function cursorOf(c: Context<AppEnv>): string | undefined {
  return c.req.query('cursor') || undefined;
}

function doneOf(c: Context<AppEnv>): DoneNotice {
  const done = c.req.query('done');
  return done === 'revoked' || done === 'released' ? done : undefined;
}

const notFound = (what: string, id: string) => new ConsoleRefusal(404, 'Not found', `No ${what} has the id ${id}.`);

export function registerConsoleViews(router: Hono<AppEnv>, deps: RouteDeps, assets: ConsoleAssets): void {
  const thresholds = { deadAfterSeconds: deps.config.serverDeadAfterSeconds };
  const viewer = (c: Context<AppEnv>): ConsoleViewer => viewerOf(c)!;

  router.get('/', async (c) => {
    const now = deps.clock.now();
    const { counts, work, hours, latest } = await c.get('read')(async (reader) => ({
      // The periodic pass's reading (at most 30 s old) once there is one: at a million servers a count reads every row.
      counts: deps.counts?.latest() ?? (await stateCounts(reader, now, thresholds)),
      work: await waitingWork(reader, now),
      hours: await activationsPerHour(reader, now, CHART_DAYS),
      latest: await listEvents(reader, { limit: LATEST, now, retentionDays: deps.config.eventRetentionDays }),
    }));
    return answerView(c, assets, overviewView(counts, work, hours, latest.items));
  });

  // The overview's search box: codes, activations and servers at once, by part of a host name or hint, or the start of an id.
  router.get('/search', async (c) => {
    const { filter, shown } = searchOf(c);
    if (!filter.q) return answerView(c, assets, searchView(undefined, undefined));
    const now = deps.clock.now();
    const found = await c.get('read')(async (reader) => ({
      codes: (await listInstallCodes(reader, { q: filter.q, limit: SEARCH_SHOWN }, now)).items,
      activations: (await listActivations(reader, { q: filter.q, limit: SEARCH_SHOWN })).items,
      servers: (await listServers(reader, { q: filter.q, limit: SEARCH_SHOWN }, now, thresholds)).items,
    }));
    return answerView(c, assets, searchView(shown.q, found));
  });

  router.get('/codes', async (c) => {
    const status = oneOf(c, 'status', CODE_STATUSES);
    const { filter, shown } = searchOf(c);
    const page = await c.get('read')((reader) =>
      listInstallCodes(reader, { ...filter, status, limit: DEFAULT_PAGE_SIZE, cursor: cursorOf(c) }, deps.clock.now()),
    );
    return answerView(c, assets, codesListView(page, { ...shown, status }, SEARCH_FIELDS, viewer(c).scope === 'write'));
  });

  router.get('/codes/:id', async (c) => {
    const id = c.req.param('id');
    // The same show as the admin API's, and the machines waiting for an operator read on their own (every one, not
    // only those among the newest prechecks shown), as listPendingPrechecks pages them.
    const found = await c.get('read')(async (reader) => {
      const show = await showInstallCode(reader, id, deps.clock.now());
      return show && { show, waiting: await pendingPrechecksOf(reader, id, { limit: DEFAULT_PAGE_SIZE }) };
    });
    if (!found) throw notFound('install code', id);
    const { show: shown, waiting } = found;
    const item = { ...shown.item, prechecks: shown.prechecks, pendingPrechecks: shown.pendingPrechecks };
    const { history } = shown;
    const fleet = item.code.operator !== null;
    const waitingSection =
      fleet && item.code.requireApproval
        ? pendingPrechecksSection(viewer(c), id, waiting?.items ?? [], shown.pendingPrechecks)
        : '';
    const sections = html`${decidedNote(c.req.query('decided'))}${fleet && item.code.uses > 1 ? codeActivationsSection(shown.activations) : ''}${waitingSection}`;
    return answerView(c, assets, codeDetailView(viewer(c), item, history, doneOf(c), sections));
  });

  router.get('/activations', async (c) => {
    const status = oneOf(c, 'status', ACTIVATION_STATUSES);
    const { filter, shown } = searchOf(c);
    const page = await c.get('read')((reader) =>
      listActivations(reader, { ...filter, status, limit: DEFAULT_PAGE_SIZE, cursor: cursorOf(c) }),
    );
    return answerView(c, assets, activationsListView(page, { ...shown, status }, SEARCH_FIELDS));
  });

  router.get('/activations/:id', async (c) => {
    const id = c.req.param('id');
    const shown = await c.get('read')((reader) => showActivation(reader, id));
    if (!shown) throw notFound('activation', id);
    const { item, history } = shown;
    return answerView(c, assets, activationDetailView(viewer(c), item, history, doneOf(c)));
  });

  router.get('/servers', async (c) => {
    const health = oneOf(c, 'health', SERVER_HEALTHS);
    const { filter, shown } = searchOf(c);
    const page = await c.get('read')((reader) =>
      listServers(
        reader,
        { ...filter, health, limit: DEFAULT_PAGE_SIZE, cursor: cursorOf(c) },
        deps.clock.now(),
        thresholds,
      ),
    );
    return answerView(c, assets, serversListView(page, { ...shown, health }, SEARCH_FIELDS));
  });

  router.get('/servers/:id', async (c) => {
    const id = c.req.param('id');
    const shown = await c.get('read')((reader) => showServer(reader, id, deps.clock.now(), thresholds));
    if (!shown) throw notFound('server', id);
    const { item, history } = shown;
    return answerView(c, assets, serverDetailView(viewer(c), item, history, doneOf(c)));
  });

  router.get('/events', async (c) => {
    const type = oneOf<EventType>(c, 'type', EVENT_TYPES);
    const page = await c.get('read')((reader) =>
      listEvents(reader, {
        type,
        limit: DEFAULT_PAGE_SIZE,
        cursor: cursorOf(c),
        now: deps.clock.now(),
        retentionDays: deps.config.eventRetentionDays,
      }),
    );
    return answerView(c, assets, eventsListView(page, { type }, EVENT_TYPES));
  });

  router.get('/webhooks', async (c) => {
    const endpoints = await c.get('read')(async (reader) => {
      const shown = [];
      for (const view of await listWebhookEndpoints(reader))
        shown.push({ view, deliveries: await listDeliveries(reader, view.endpoint.id, LATEST) });
      return shown;
    });
    const replayed = c.req.query('replayed');
    return answerView(
      c,
      assets,
      webhooksView(viewer(c), endpoints, replayed && /^whd_[0-9a-f]{16}$/.test(replayed) ? replayed : undefined),
    );
  });
}
