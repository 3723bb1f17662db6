ALTER TABLE "install_codes" ADD COLUMN "browser_session_hash" text;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "prechecked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "precheck_machine_id" text;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "precheck_ssh_fingerprint" text;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "precheck_ip" text;--> statement-breakpoint
CREATE INDEX "install_codes_browser_session_hash_idx" ON "install_codes" USING btree ("browser_session_hash");