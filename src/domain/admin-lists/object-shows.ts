import type { Database } from '../../db/database.js';
import type { ActivationRow } from '../activations/activation-rows.js';
import type { EventRow } from '../events/event-trail.js';
import { codeActivations } from '../install-codes/code-activations.js';
import {
  operatorPrechecksOf,
  pendingPrecheckCount,
  type OperatorPrecheck,
} from '../install-codes/operator-prechecks.js';
import { type ActivationListItem, listActivations } from './activation-list.js';
import { type InstallCodeListItem, listInstallCodes } from './install-code-list.js';
import { eventsOf } from './object-events.js';
import { type HealthThresholds, listServers, type ServerListItem } from './server-list.js';

/**
 * One object as its show answers it (the admin API's `GET …/{id}` and the console's detail view alike): its list
 * item, found by id through its own list so both say the same of it, and its history; undefined when there is none.
 */
export interface ObjectShow<T> {
  item: T;
  history: EventRow[];
}

/** A code with, besides its history, the prechecks waiting on a decision and the activations it made (DESIGN §22). */
export interface InstallCodeShow extends ObjectShow<InstallCodeListItem> {
  prechecks: OperatorPrecheck[];
  /** How many machines wait on a decision, all of them (not only among the prechecks shown). */
  pendingPrechecks: number;
  activations: ActivationRow[];
}

export async function showInstallCode(reader: Database, id: string, now: Date): Promise<InstallCodeShow | undefined> {
  const [item] = (await listInstallCodes(reader, { id, limit: 1 }, now)).items;
  if (!item) return undefined;
  return {
    item,
    history: await eventsOf(reader, { kind: 'ic_', id, createdAt: item.code.issuedAt }),
    prechecks: await operatorPrechecksOf(reader, item.code),
    pendingPrechecks: await pendingPrecheckCount(reader, item.code),
    activations: await codeActivations(reader, item.code),
  };
}

export async function showActivation(
  reader: Database,
  id: string,
): Promise<ObjectShow<ActivationListItem> | undefined> {
  const [item] = (await listActivations(reader, { id, limit: 1 })).items;
  if (!item) return undefined;
  return { item, history: await eventsOf(reader, { kind: 'act_', id, createdAt: item.activation.createdAt }) };
}

export async function showServer(
  reader: Database,
  id: string,
  now: Date,
  thresholds: HealthThresholds,
): Promise<ObjectShow<ServerListItem> | undefined> {
  const [item] = (await listServers(reader, { id, limit: 1 }, now, thresholds)).items;
  if (!item) return undefined;
  return { item, history: await eventsOf(reader, { kind: 'srv_', id, createdAt: item.server.registeredAt }) };
}
