import type { Command } from 'commander';
import { repeatable, tagFilterOf } from './tag-options.js';

/** The search flags of `codes`, `activations` and `servers list`, as the admin API's query (DESIGN §17). */
export interface SearchFlags {
  q?: string;
  ip?: string;
  machineId?: string;
  sshFingerprint?: string;
  tag?: string[];
}

/** Adds the search flags; `q` says what this list's `--q` looks in, `machine` which machine the others are about. */
export function searchOptions(command: Command, q: string, machine: string): Command {
  return command
    .option('--q <text>', `part of ${q}, case-insensitive, at least 3 characters`)
    .option('--ip <address-or-cidr>', `an address or a network (203.0.113.0/24): the public IP of ${machine}`)
    .option('--machine-id <id>', `the machine-id of ${machine}`)
    .option('--ssh-fingerprint <fingerprint>', `the SSH host key fingerprint of ${machine} (SHA256:…)`)
    .option(
      '--tag <key=value>',
      'a tag of the fleet code it came from (env=prod); repeatable, every one must match',
      repeatable,
    );
}

export function searchQuery(flags: SearchFlags) {
  return {
    q: flags.q,
    ip: flags.ip,
    machine_id: flags.machineId,
    ssh_fingerprint: flags.sshFingerprint,
    tag: tagFilterOf(flags.tag),
  };
}
