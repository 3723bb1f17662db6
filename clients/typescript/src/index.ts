export { createClient, DEFAULT_TIMEOUT_MS } from './client.js';
export { createAdminClient, IDEMPOTENCY_KEY, type AdminClient, type AdminClientOptions } from './admin-client.js';
export type {
  Activation,
  ActivateRequest,
  BrowserSessionOptions,
  CallOptions,
  CancelInstallCodeRequest,
  CheckinRequest,
  CheckinResult,
  ClientOptions,
  ConfirmRequest,
  ConfirmResult,
  Health,
  IssueOptions,
  IssuedInstallCode,
  InstallStatus,
  InstallStatusRequest,
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
  WatchedInstallCode,
  WatchedInstallCodes,
} from './client.js';
export {
  SlowdnsApiError,
  SlowdnsNetworkError,
  SlowdnsTimeoutError,
  SlowdnsUnexpectedResponseError,
  type ErrorCode,
} from './errors.js';
export type { RetryOptions } from './retry.js';
export { CLIENT_NAME, CLIENT_VERSION } from './version.js';
export { runInstall } from './run-install.js';
export { MachineProofUnavailableError, type InstallProofOptions } from './install-proof.js';
export {
  DEFAULT_HOST_KEY_FILES,
  hostKeyFingerprint,
  proofMessage,
  PROOF_NAMESPACE,
  signMachineProof,
  type MachineProofFields,
  type ProofStatement,
} from './machine-proof.js';
export { HostKeyUnusableError } from './openssh-private-key.js';
export { activateWhenApproved, SlowdnsApprovalExpiredError, type ApprovalWaitOptions } from './approval-wait.js';
export { RECEIPT_TYP, ReceiptInvalidError, verifyReceipt, type ReceiptClaims, type ReceiptProblem } from './receipt.js';
export { InstallCodeSourceError, readInstallCode, type InstallCodeSource } from './install-code-source.js';
export { IdentityTokenSourceError, readIdentityToken, type IdentityEnrollment } from './identity-token-source.js';
export {
  fileStateStore,
  type InstallActivation,
  type InstallStateStore,
  type SavedActivation,
} from './install-state.js';
export type {
  ConfirmedAddress,
  InstallResult,
  InstallStage,
  InstallStepContext,
  Interruption,
  MachineIdentity,
  ReleaseReport,
  RunInstallOptions,
  StepContext,
} from './run-install.js';
export type { components, operations, paths } from './schema.js';
