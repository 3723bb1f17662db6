export { createClient } from './client.js';
export type {
  Activation,
  ActivateRequest,
  CallOptions,
  CheckinRequest,
  CheckinResult,
  ClientOptions,
  ConfirmRequest,
  ConfirmResult,
  Health,
  IssueOptions,
  IssuedInstallCode,
  PrecheckRequest,
  PrecheckResult,
  RegisteredServer,
  RegisterRequest,
  ReleaseRequest,
  ReleaseResult,
  RevokeRequest,
  RevokeResult,
  ServerRecord,
  ServiceStatus,
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
