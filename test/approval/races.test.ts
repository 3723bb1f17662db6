import { describe } from 'vitest';
import { approvalRaces } from '../support/approval-races.js';
import { useTestApp } from '../support/test-app.js';

describe('approval races on the real database', () => {
  const t = useTestApp();
  approvalRaces(() => t);
});
