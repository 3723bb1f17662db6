ALTER TABLE "activations" ADD COLUMN "duplicate_of" text;--> statement-breakpoint
CREATE INDEX "activations_machine_id_idx" ON "activations" USING btree ("machine_id");--> statement-breakpoint
CREATE INDEX "activations_ssh_fingerprint_idx" ON "activations" USING btree ("ssh_fingerprint");