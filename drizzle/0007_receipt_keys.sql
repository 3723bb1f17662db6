CREATE TABLE "receipt_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"first_signed_at" timestamp with time zone NOT NULL,
	"last_signed_at" timestamp with time zone NOT NULL
);
