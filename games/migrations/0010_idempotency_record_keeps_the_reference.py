"""An idempotency record keeps what the action did (its seat, the events it wrote, the deadline it
set) instead of the answer's body: a retry's answer is read back from the log. The records kept so
far are converted from their bodies, so their retries still replay."""

from django.db import migrations, models
from django.utils.dateparse import parse_datetime


def reference_from_body(apps, schema_editor):
    Record = apps.get_model("games", "IdempotencyRecord")
    for record in Record.objects.iterator():
        body = record.response
        events = body.get("events") or []
        record.last_seq = body["version"]
        record.first_seq = events[0]["seq"] if events else body["version"] + 1
        record.seat = body["game"]["my_seat"]
        deadline = body["game"].get("deadline")
        record.deadline = parse_datetime(deadline) if deadline else None
        record.save(update_fields=["seat", "first_seq", "last_seq", "deadline"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0009_idempotency_created_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="idempotencyrecord",
            name="seat",
            field=models.PositiveSmallIntegerField(null=True, help_text="The seat that acted."),
        ),
        migrations.AddField(
            model_name="idempotencyrecord",
            name="first_seq",
            field=models.PositiveIntegerField(
                null=True, help_text="The first event the action wrote."
            ),
        ),
        migrations.AddField(
            model_name="idempotencyrecord",
            name="last_seq",
            field=models.PositiveIntegerField(
                null=True, help_text="Its last: the game's version after it."
            ),
        ),
        migrations.AddField(
            model_name="idempotencyrecord",
            name="deadline",
            field=models.DateTimeField(null=True, help_text="The turn's deadline the action set."),
        ),
        # A body cannot be written back from a reference: going back forgets the records.
        migrations.RunPython(reference_from_body, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="idempotencyrecord",
            name="seat",
            field=models.PositiveSmallIntegerField(help_text="The seat that acted."),
        ),
        migrations.AlterField(
            model_name="idempotencyrecord",
            name="first_seq",
            field=models.PositiveIntegerField(help_text="The first event the action wrote."),
        ),
        migrations.AlterField(
            model_name="idempotencyrecord",
            name="last_seq",
            field=models.PositiveIntegerField(help_text="Its last: the game's version after it."),
        ),
        migrations.RemoveField(model_name="idempotencyrecord", name="status"),
        migrations.RemoveField(model_name="idempotencyrecord", name="response"),
    ]
