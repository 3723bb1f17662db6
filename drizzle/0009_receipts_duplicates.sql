CREATE TABLE "receipt_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"first_signed_at" timestamp with time zone NOT NULL,
	"last_signed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "activations" ADD COLUMN "duplicate_of" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "last_checkin_ip" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "previous_checkin_ip" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "address_alternations" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "activations_machine_id_idx" ON "activations" USING btree ("machine_id");--> statement-breakpoint
CREATE INDEX "activations_ssh_fingerprint_idx" ON "activations" USING btree ("ssh_fingerprint");