export { createClient } from './client.js';
export type {
  Activation,
  ActivateRequest,
  CallOptions,
  ClientOptions,
  ConfirmRequest,
  ConfirmResult,
  Health,
  IssueOptions,
  IssuedInstallCode,
  PrecheckRequest,
  PrecheckResult,
  ReleaseRequest,
  ReleaseResult,
  SlowdnsClient,
} from './client.js';
export { SlowdnsApiError, SlowdnsNetworkError, SlowdnsUnexpectedResponseError, type ErrorCode } from './errors.js';
export { runInstall } from './run-install.js';
export type {
  ConfirmedAddress,
  InstallResult,
  InstallStage,
  Interruption,
  MachineIdentity,
  ReleaseReport,
  RunInstallOptions,
  StepContext,
} from './run-install.js';
export type { components, operations, paths } from './schema.js';
