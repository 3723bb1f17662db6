import { z } from '@hono/zod-openapi';
import { CONTROL_CHARACTERS_MESSAGE, WITHOUT_CONTROL_CHARACTERS } from '../control-characters.js';

/** Why an operator acts, kept as `reason` in the events of the action with the operator's name. */
export const OperatorReasonSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .regex(WITHOUT_CONTROL_CHARACTERS, CONTROL_CHARACTERS_MESSAGE)
  .optional()
  .openapi({
    description:
      'Why, kept as `reason` in the events of this action beside `operator`: 1 to 200 characters, no control characters.',
    example: 'Ticket 1234: the customer lost the machine.',
  });

/** The optional body of an operator action that takes nothing but a reason. */
export const OperatorActionRequestSchema = z.object({ reason: OperatorReasonSchema }).openapi('OperatorActionRequest');
