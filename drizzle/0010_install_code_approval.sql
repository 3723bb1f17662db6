CREATE TABLE "install_code_prechecks" (
	"id" text PRIMARY KEY NOT NULL,
	"install_code_id" text NOT NULL,
	"prechecked_at" timestamp with time zone NOT NULL,
	"ip" text,
	"machine_id" text NOT NULL,
	"ssh_fingerprint" text NOT NULL,
	"installer_version" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "approval" text;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "approval_precheck_id" text;--> statement-breakpoint
ALTER TABLE "install_codes" ADD COLUMN "approval_decided_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "install_code_prechecks" ADD CONSTRAINT "install_code_prechecks_install_code_id_install_codes_id_fk" FOREIGN KEY ("install_code_id") REFERENCES "public"."install_codes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "install_code_prechecks_install_code_id_idx" ON "install_code_prechecks" USING btree ("install_code_id","prechecked_at");--> statement-breakpoint
ALTER TABLE "install_codes" ADD CONSTRAINT "install_codes_approval_check" CHECK ("install_codes"."approval" in ('pending', 'approved', 'denied'));