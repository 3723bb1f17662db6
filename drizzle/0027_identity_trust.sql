CREATE TABLE "identity_token_uses" (
	"replay_key_hash" text PRIMARY KEY NOT NULL,
	"install_code_id" text NOT NULL,
	"machine_id" text NOT NULL,
	"ssh_fingerprint" text NOT NULL,
	"used_at" timestamp with time zone NOT NULL,
	"keep_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "trust" jsonb;--> statement-breakpoint
ALTER TABLE "identity_token_uses" ADD CONSTRAINT "identity_token_uses_install_code_id_install_codes_id_fk" FOREIGN KEY ("install_code_id") REFERENCES "public"."install_codes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "identity_token_uses_keep_until_idx" ON "identity_token_uses" USING btree ("keep_until");