import { readFile } from 'node:fs/promises';

/**
 * Codeless enrollment (DESIGN §25): a code made with `trust` has no secret. The machine names the code by its
 * id (`ic_…`, no secret) and proves who it is with the signed identity token its platform gives it: a GitHub
 * Actions or GitLab CI ID token, a Kubernetes projected service-account token, GCP's metadata identity.
 */
export interface IdentityEnrollment {
  /** The code's id, `ic_` + 16 hex characters (`install_code_id` of the code's creation). */
  installCodeId: string;
  /**
   * The file the platform writes the token to (a Kubernetes projected token, a CI job's token written by a step),
   * read again at each precheck: platforms rotate it. Or give `token`.
   */
  tokenFile?: string;
  /** Answers the token, called at each precheck (fetch it from GCP's metadata server, a CI's token endpoint, …). */
  token?: () => string | Promise<string>;
}

/** The token could not be read, or what was read is not a token. Its message never holds the token. */
export class IdentityTokenSourceError extends Error {
  override name = 'IdentityTokenSourceError';
}

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** The identity token for this precheck: from `token()`, else the file `tokenFile` names, surrounding space trimmed. */
export async function readIdentityToken(identity: IdentityEnrollment): Promise<string> {
  if (identity.token && identity.tokenFile)
    throw new IdentityTokenSourceError('give the identity token as tokenFile or as token, not both');
  let token: string;
  if (identity.token) token = await identity.token();
  else if (identity.tokenFile)
    token = await readFile(identity.tokenFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new IdentityTokenSourceError(
        `cannot read the identity token file ${identity.tokenFile} (${error.code ?? error.message})`,
      );
    });
  else throw new IdentityTokenSourceError('no identity token: give tokenFile or token');
  token = token.trim();
  if (!JWT.test(token))
    throw new IdentityTokenSourceError(
      identity.tokenFile
        ? `the identity token file ${identity.tokenFile} holds no token (a JWT)`
        : 'the identity token given is not a JWT',
    );
  return token;
}
