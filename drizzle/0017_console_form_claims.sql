CREATE TABLE "console_form_claims" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"session_token_hash" text NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "console_form_claims" ADD CONSTRAINT "console_form_claims_session_token_hash_console_sessions_token_hash_fk" FOREIGN KEY ("session_token_hash") REFERENCES "public"."console_sessions"("token_hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "console_form_claims_session_token_hash_idx" ON "console_form_claims" USING btree ("session_token_hash");